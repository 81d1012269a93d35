package api

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A refusal's retry line carries every flag the operator gave, the reason
// as TEXT, and quotes a value a shell would split.
func TestCommandCarriesEveryFlag(t *testing.T) {
	replace := ActionInput{Cluster: "site-a", BMM: "rack1-c1", Action: ActionReplace, ApplyFirmware: true, EvacuateTimeout: 10 * time.Minute,
		ReplaceParams: ReplaceParams{BootMacAddress: "52:54:00:00:02:11", SerialNumber: "SN 42's", SafeguardMode: SafeguardNone}}
	assert.Equal(t, `starter bmm replace --cluster site-a --bmm rack1-c1 --boot-mac-address 52:54:00:00:02:11 --serial-number 'SN 42'\''s' --safeguard-mode None --apply-firmware --evacuate-timeout 10m0s`,
		replace.Command())
	assert.Equal(t, `starter bmm power-off --cluster c --bmm b --skip-shutdown --force --reason TEXT`,
		ActionInput{Cluster: "c", BMM: "b", Action: ActionPowerOff, SkipShutdown: true, Force: true, Reason: "INC-1; rm -rf /"}.Command())
	assert.Equal(t, `starter bmm troubleshoot --cluster c --bmm b --problem hardware --apply-firmware`,
		TroubleshootInput{Cluster: "c", BMM: "b", Problem: ProblemHardware, ApplyFirmware: true}.Command())
}

// A runbook cannot both apply firmware and skip its check; a runbook's
// input from before the field (no applyFirmware) applies none.
func TestTroubleshootApplyFirmwareInput(t *testing.T) {
	in := TroubleshootInput{Cluster: "c", BMM: "b", Problem: ProblemHardware, ApplyFirmware: true, Force: true, Reason: "INC-1"}
	require.ErrorContains(t, in.Validate(), "applyFirmware and force both true (--apply-firmware, --force)")
	in.Force, in.Reason = false, ""
	require.NoError(t, in.Validate())

	var old TroubleshootInput
	require.NoError(t, json.Unmarshal([]byte(`{"cluster":"c","bmm":"b","problem":"hardware"}`), &old))
	assert.False(t, old.ApplyFirmware)
}
