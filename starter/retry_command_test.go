package main

import (
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
)

// The command lines a refusal names (api's Command, e.g. the safeguard
// refusal's replace and the troubleshoot runbook's retries) are this
// starter's: every flag parses, with the value given.
func TestRefusalCommandsParse(t *testing.T) {
	for _, tc := range []struct {
		line string
		want map[string]string
	}{
		{api.ActionInput{Cluster: "site-a", BMM: "rack1-c1", Action: api.ActionReplace, ApplyFirmware: true, EvacuateTimeout: 5 * time.Minute,
			ReplaceParams: api.ReplaceParams{SerialNumber: "SN-NEW", SafeguardMode: api.SafeguardNone, StoragePolicy: api.StoragePreserve}}.Command(),
			map[string]string{"cluster": "site-a", "bmm": "rack1-c1", "serial-number": "SN-NEW", "safeguard-mode": "None", "storage-policy": "Preserve",
				"apply-firmware": "true", "evacuate-timeout": "5m0s"}},
		{api.ActionInput{Cluster: "site-a", BMM: "rack1-c1", Action: api.ActionCordon, Evacuate: true}.Command(),
			map[string]string{"evacuate": "true"}},
		{api.TroubleshootInput{Cluster: "site-a", BMM: "rack1-c1", Problem: api.ProblemHardware, ApplyFirmware: true}.Command(),
			map[string]string{"problem": "hardware", "apply-firmware": "true"}},
		{api.TroubleshootInput{Cluster: "site-a", BMM: "rack1-c1", Problem: api.ProblemUnresponsive, Force: true}.Command(),
			map[string]string{"force": "true", "reason": "TEXT"}},
	} {
		args := strings.Fields(tc.line)
		if args[0] != "starter" {
			t.Fatalf("%s: not a starter command", tc.line)
		}
		cmd, rest, err := newRoot().Find(args[1:])
		if err != nil {
			t.Fatalf("%s: %v", tc.line, err)
		}
		if err := cmd.ParseFlags(rest); err != nil {
			t.Fatalf("%s: %v", tc.line, err)
		}
		for name, want := range tc.want {
			f := cmd.Flags().Lookup(name)
			if f == nil || f.Value.String() != want {
				t.Errorf("%s: --%s is %v, want %s", tc.line, name, f, want)
			}
		}
	}
}
