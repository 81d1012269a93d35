package server

import (
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/rackroll/rackroll/workflows/kernel"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"
)

// A reimage is judged in band: it is over when the node is back on a new
// boot at the target, the installer is ejected only then, and a node that
// does not come back fails at the limit naming what was seen.

// upgradeOne runs ServerUpgradeWorkflow for rack1-c1 to 4.2.0 on the fake
// site, after edit; it returns the result and how long it took.
func upgradeOne(t *testing.T, edit func(*wftest.FakeSite, *testsuite.TestWorkflowEnvironment)) (*wftest.FakeSite, api.ServerResult, time.Duration) {
	t.Helper()
	f, env := wftest.SiteEnv(t, wftest.Example("four-rack.yaml"))
	if edit != nil {
		edit(f, env)
	}
	start := env.Now()
	env.ExecuteWorkflow(ServerUpgradeWorkflow, api.ServerInput{Cluster: "site-a", BMM: wftest.Compute, TargetVersion: "4.2.0", ImageURL: "http://images/rackroll-4.2.0.iso"})
	require.NoError(t, env.GetWorkflowError())
	var res api.ServerResult
	require.NoError(t, env.GetWorkflowResult(&res))
	return f, res, env.Now().Sub(start)
}

func TestReimageSucceedsOnANewBootAtTheTarget(t *testing.T) {
	f, res, _ := upgradeOne(t, nil)
	require.True(t, res.Succeeded, res.Error)
	require.Len(t, f.Waits, 1, "one wait: the reimage's own")
	require.Equal(t, wftest.BootID(wftest.Compute, 0), f.Waits[0].PreviousBootID, "the boot before the reset")
	require.Equal(t, "4.2.0", f.Waits[0].Version)
	require.Equal(t, []string{wftest.Compute + " back"}, f.Ejects, "ejected once, with the node back on a new boot")
	calls := f.CallLog()
	require.Less(t, wftest.Index(calls, "Reimage"), wftest.Index(calls, "WaitNodeReady"))
	require.Less(t, wftest.Index(calls, "WaitNodeReady"), wftest.Index(calls, "EjectMedia"))
	require.Less(t, wftest.Index(calls, "EjectMedia"), wftest.Index(calls, "Uncordon"), "uncordoned after the eject")
	require.Equal(t, "4.2.0", f.LedgerBMM(wftest.Compute).RuntimeVersion)
}

func TestWatchFailureEndsTheWaitEarly(t *testing.T) {
	const hint = "BMC of rack1-c1: the reset's task ended in Exception (last state: PowerState Off, BootProgress None)"
	f, res, took := upgradeOne(t, func(f *wftest.FakeSite, _ *testsuite.TestWorkflowEnvironment) {
		f.Lost[wftest.Compute] = true
		f.WatchFails[wftest.Compute] = hint
		f.Delay["WatchReimage"] = 5 * time.Minute
		f.Delay["WaitNodeReady"] = 2 * time.Hour // the node would only be given up at the limit
	})
	require.False(t, res.Succeeded)
	require.Contains(t, res.Error, "the install on rack1-c1 failed before node rack1-c1 came back on 4.2.0")
	require.Contains(t, res.Error, "the BMC showed last: "+hint)
	require.Contains(t, res.Error, "Ready=Unknown", "what the node showed")
	require.Less(t, took, time.Hour, "ended by the watch, not by the wait")
	require.Equal(t, []string{wftest.Compute + " not-back"}, f.Ejects)
	require.Equal(t, "4.1.2", f.LedgerBMM(wftest.Compute).RuntimeVersion, "no false success")
}

func TestNodeNeverBackFailsAtTheLimit(t *testing.T) {
	f, res, _ := upgradeOne(t, func(f *wftest.FakeSite, _ *testsuite.TestWorkflowEnvironment) { f.Lost[wftest.Compute] = true })
	require.False(t, res.Succeeded)
	require.Contains(t, res.Error, "node readiness of rack1-c1 failed: node rack1-c1 did not come back on 4.2.0 within")
	require.Contains(t, res.Error, "the node showed last: node rack1-c1 Ready=Unknown")
	require.Contains(t, res.Error, "the BMC showed last: power On, health OK")
	require.Len(t, f.Waits, 1)
	require.InDelta(t, model.DefaultTimeouts().Reimage.Std().Minutes(), f.Waits[0].Timeout.Minutes(), 1, "the wait gets what is left of the reimage limit")
	require.Equal(t, []string{wftest.Compute + " not-back"}, f.Ejects)
	require.Equal(t, -1, wftest.Index(f.CallLog(), "Uncordon"))
	b := f.LedgerBMM(wftest.Compute)
	require.Equal(t, "4.1.2", b.RuntimeVersion, "no false success")
	require.Equal(t, model.BMMError, b.DetailedStatus)
}

func TestRecordedHistoriesKeepTheBMCJudgedReimage(t *testing.T) {
	f, res, _ := upgradeOne(t, func(_ *wftest.FakeSite, env *testsuite.TestWorkflowEnvironment) {
		env.OnGetVersion(kernel.ChangeReimageInBand, workflow.DefaultVersion, 1).Return(workflow.DefaultVersion)
	})
	require.True(t, res.Succeeded, res.Error)
	require.Empty(t, f.Ejects, "the BMC step ejected in those histories")
	require.Len(t, f.Waits, 1)
	require.Empty(t, f.Waits[0].PreviousBootID)
	require.Equal(t, 30*time.Minute, f.Waits[0].Timeout)
}

func TestTheSiteVersionSourceReachesTheWait(t *testing.T) {
	src := model.NodeVersionSource{OSImagePattern: `^rackroll (\S+) `}
	f, res, _ := upgradeOne(t, func(f *wftest.FakeSite, _ *testsuite.TestWorkflowEnvironment) { f.St.NodeVersion = src })
	require.True(t, res.Succeeded, res.Error)
	require.Len(t, f.Waits, 1)
	require.Equal(t, src, f.Waits[0].VersionFrom, "the ledger's source, as the inventory set it")
}
