package upgrade

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/firmware"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"
)

// fwSite is the four-rack site with a baseline for 4.2.0, every server at
// it but those below (BMM -> BIOS, iDRAC).
func fwSite(t *testing.T, below map[string][2]string) (*wftest.FakeSite, *testsuite.TestWorkflowEnvironment) {
	f, env := wftest.SiteEnv(t, wftest.Example("four-rack.yaml"))
	f.St.Firmware = map[string]firmware.Baseline{"4.2.0": wftest.DellBaseline()}
	for _, b := range f.St.Cluster.BMMs {
		v, ok := below[b.Name]
		if !ok {
			v = [2]string{"1.13.2", "7.00.30.00"}
		}
		f.FirmwareOf(b.Name, wftest.Dell(v[0], v[1]))
	}
	return f, env
}

// Servers below the target's baseline get it inside their one
// disruption: after the drain and the VM shutdown, before the reimage,
// host firmware first and the BMC last; servers at the baseline are read
// and not touched; nobody is drained twice; every server ends at the
// target and at the baseline.
func TestUpgradeAppliesFirmwareInsideTheDrain(t *testing.T) {
	f, env := fwSite(t, map[string][2]string{"rack1-c1": {"1.10.0", "6.10.00.00"}, "rack2-c3": {"1.13.2", "6.10.00.00"}})
	env.ExecuteWorkflow(RuntimeUpgradeWorkflow, wftest.UpgradeInput(model.UpdateStrategy{}))
	require.NoError(t, env.GetWorkflowError())

	var applied []string
	for _, in := range f.FirmwareInputs {
		applied = append(applied, in.BMM+" "+in.Component.Name)
		assert.LessOrEqual(t, in.TaskLimit, 30*time.Minute, "within the firmware row")
	}
	assert.Equal(t, []string{"rack1-c1 BIOS", "rack1-c1 iDRAC", "rack2-c3 iDRAC"}, applied, "only the components below, the BMC last")

	log := f.CallLog()
	for _, b := range f.St.Cluster.BMMs {
		if b.HasRole(model.RoleKCPSpare) {
			continue // the old KCP, retired as the new spare: not reimaged
		}
		assert.Equal(t, 1, wftest.Count(log, "Drain "+b.NodeName), "%s drained once", b.Name)
		assert.Equal(t, 1, wftest.Count(log, "ReadFirmware "+b.Name), "%s read once", b.Name)
		assert.Equal(t, "4.2.0", f.LedgerBMM(b.Name).RuntimeVersion)
		rep := firmware.Judge(wftest.DellBaseline(), f.FirmwareNow(b.Name))
		assert.Empty(t, rep.Below(), "%s at the baseline", b.Name)
	}
	drain, fw, shut, reimage := slices.Index(log, "Drain rack1-c1"), slices.Index(log, "ApplyFirmware rack1-c1 BIOS"),
		slices.Index(log, "ShutdownVMs rack1-c1"), slices.Index(log, "Reimage rack1-c1")
	require.True(t, drain >= 0 && shut > drain && fw > shut && reimage > fw, "drain %d, VMs %d, firmware %d, reimage %d", drain, shut, fw, reimage)
}

// A firmware update that fails fails its server, which counts against
// the rack's threshold like a failed reimage: two of rack2's eight miss
// 80 %, the upgrade pauses naming them, and they are never reimaged on
// the old firmware.
func TestFirmwareFailureCountsAgainstTheThreshold(t *testing.T) {
	f, env := fwSite(t, map[string][2]string{"rack2-c1": {"1.10.0", "7.00.30.00"}, "rack2-c2": {"1.10.0", "7.00.30.00"}})
	f.FirmwareFails["rack2-c1"] = "the update task ended Exception"
	f.FirmwareFails["rack2-c2"] = "the update task ended Exception"
	var paused api.UpgradeStatus
	cont := pauseThenContinue(t, env, &paused, 3*time.Hour)
	env.ExecuteWorkflow(RuntimeUpgradeWorkflow, wftest.UpgradeInput(model.UpdateStrategy{}))
	require.NoError(t, env.GetWorkflowError())

	require.Equal(t, model.ClusterUpdatePaused, paused.DetailedStatus)
	require.Contains(t, paused.DetailedStatusMessage, "rack rack2 missed its threshold: 6 of 8")
	require.Contains(t, paused.DetailedStatusMessage, "rack2-c1, rack2-c2")
	for _, b := range []string{"rack2-c1", "rack2-c2"} {
		require.NotContains(t, f.Reimages, b, "never reimaged on the old firmware")
		require.True(t, f.Cordoned[b], "a failed server stays cordoned")
		bm := f.LedgerBMM(b)
		require.Equal(t, model.BMMError, bm.DetailedStatus)
		require.True(t, strings.HasPrefix(bm.DetailedStatusMessage, "firmware of "+b+" failed: BIOS: the update task ended Exception"), bm.DetailedStatusMessage)
	}
	require.NoError(t, cont.Rejected)
}

// A target with no baseline reads no firmware.
func TestUpgradeWithoutBaselineReadsNoFirmware(t *testing.T) {
	f, env := fwSite(t, map[string][2]string{"rack1-c1": {"1.10.0", "6.10.00.00"}})
	f.St.Firmware = map[string]firmware.Baseline{"4.1.2": wftest.DellBaseline()}
	env.ExecuteWorkflow(RuntimeUpgradeWorkflow, wftest.UpgradeInput(model.UpdateStrategy{}))
	require.NoError(t, env.GetWorkflowError())
	require.Zero(t, wftest.Count(f.CallLog(), "ReadFirmware rack1-c1"))
	require.Empty(t, f.FirmwareInputs)
}
