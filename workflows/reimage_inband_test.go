package workflows

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/activities/kube"
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/remediate"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"
)

// A reimage is judged in band: it is over when the node is back on a new
// boot at the target, the installer is ejected only then, and a node that
// does not come back fails at the limit naming what was seen.

// upgradeOne runs ServerUpgradeWorkflow for rack1-c1 to 4.2.0 on the fake
// site, after edit; it returns the result and how long it took.
func upgradeOne(t *testing.T, edit func(*fakeSite, *testsuite.TestWorkflowEnvironment)) (*fakeSite, api.ServerResult, time.Duration) {
	t.Helper()
	f, env := siteEnv(t, "../examples/four-rack.yaml")
	if edit != nil {
		edit(f, env)
	}
	start := env.Now()
	env.ExecuteWorkflow(ServerUpgradeWorkflow, api.ServerInput{Cluster: "site-a", BMM: compute, TargetVersion: "4.2.0", ImageURL: "http://images/rackroll-4.2.0.iso"})
	require.NoError(t, env.GetWorkflowError())
	var res api.ServerResult
	require.NoError(t, env.GetWorkflowResult(&res))
	return f, res, env.Now().Sub(start)
}

// index is where step is in calls (-1 when absent).
func index(calls []string, step string) int { return slices.Index(calls, step+" "+compute) }

func TestReimageSucceedsOnANewBootAtTheTarget(t *testing.T) {
	f, res, _ := upgradeOne(t, nil)
	require.True(t, res.Succeeded, res.Error)
	require.Len(t, f.waits, 1, "one wait: the reimage's own")
	require.Equal(t, bootID(compute, 0), f.waits[0].PreviousBootID, "the boot before the reset")
	require.Equal(t, "4.2.0", f.waits[0].Version)
	require.Equal(t, []string{compute + " back"}, f.ejects, "ejected once, with the node back on a new boot")
	calls := f.callLog()
	require.Less(t, index(calls, "Reimage"), index(calls, "WaitNodeReady"))
	require.Less(t, index(calls, "WaitNodeReady"), index(calls, "EjectMedia"))
	require.Less(t, index(calls, "EjectMedia"), index(calls, "Uncordon"), "uncordoned after the eject")
	require.Equal(t, "4.2.0", f.ledgerBMM(compute).RuntimeVersion)
}

func TestSameVersionReimageDoesNotPassOnTheOldBoot(t *testing.T) {
	s := newActionSite(t)
	s.noBoot[compute] = true // the reset "took effect", the machine never boots again
	_, err := s.runAction(t, act(api.ActionReimage, compute))
	require.ErrorContains(t, err, "reimage of rack1-c1 failed: wait for node Ready: node rack1-c1 did not come back on 4.1.2")
	require.ErrorContains(t, err, "still the boot from before the reset")
	require.ErrorContains(t, err, "Ready=True", "the node showed last: Ready on the old boot")
	require.Equal(t, []string{compute + " not-back"}, s.ejects, "ejected after the failure only")
	require.Equal(t, -1, index(s.callLog(), "Uncordon"), "a failed reimage leaves the server cordoned")
	require.Equal(t, model.BMMError, s.ledgerBMM(compute).DetailedStatus)
}

func TestWatchFailureEndsTheWaitEarly(t *testing.T) {
	const hint = "BMC of rack1-c1: the reset's task ended in Exception (last state: PowerState Off, BootProgress None)"
	f, res, took := upgradeOne(t, func(f *fakeSite, _ *testsuite.TestWorkflowEnvironment) {
		f.lost[compute] = true
		f.watchFails[compute] = hint
		f.delay["WatchReimage"] = 5 * time.Minute
		f.delay["WaitNodeReady"] = 2 * time.Hour // the node would only be given up at the limit
	})
	require.False(t, res.Succeeded)
	require.Contains(t, res.Error, "the install on rack1-c1 failed before node rack1-c1 came back on 4.2.0")
	require.Contains(t, res.Error, "the BMC showed last: "+hint)
	require.Contains(t, res.Error, "Ready=Unknown", "what the node showed")
	require.Less(t, took, time.Hour, "ended by the watch, not by the wait")
	require.Equal(t, []string{compute + " not-back"}, f.ejects)
	require.Equal(t, "4.1.2", f.ledgerBMM(compute).RuntimeVersion, "no false success")
}

func TestNodeNeverBackFailsAtTheLimit(t *testing.T) {
	f, res, _ := upgradeOne(t, func(f *fakeSite, _ *testsuite.TestWorkflowEnvironment) { f.lost[compute] = true })
	require.False(t, res.Succeeded)
	require.Contains(t, res.Error, "node readiness of rack1-c1 failed: node rack1-c1 did not come back on 4.2.0 within")
	require.Contains(t, res.Error, "the node showed last: node rack1-c1 Ready=Unknown")
	require.Contains(t, res.Error, "the BMC showed last: power On, health OK")
	require.Len(t, f.waits, 1)
	require.InDelta(t, model.DefaultTimeouts().Reimage.Std().Minutes(), f.waits[0].Timeout.Minutes(), 1, "the wait gets what is left of the reimage limit")
	require.Equal(t, []string{compute + " not-back"}, f.ejects)
	require.Equal(t, -1, index(f.callLog(), "Uncordon"))
	b := f.ledgerBMM(compute)
	require.Equal(t, "4.1.2", b.RuntimeVersion, "no false success")
	require.Equal(t, model.BMMError, b.DetailedStatus)
}

func TestRecordedHistoriesKeepTheBMCJudgedReimage(t *testing.T) {
	f, res, _ := upgradeOne(t, func(_ *fakeSite, env *testsuite.TestWorkflowEnvironment) {
		env.OnGetVersion(changeReimageInBand, workflow.DefaultVersion, 1).Return(workflow.DefaultVersion)
	})
	require.True(t, res.Succeeded, res.Error)
	require.Empty(t, f.ejects, "the BMC step ejected in those histories")
	require.Len(t, f.waits, 1)
	require.Empty(t, f.waits[0].PreviousBootID)
	require.Equal(t, 30*time.Minute, f.waits[0].Timeout)
}

func TestReprovisionIsJudgedInBand(t *testing.T) {
	r := newFakeSite(t, "../examples/four-rack.yaml")
	r.set(compute, func(n *fakeNode) { n.rofs = true })
	r.noBoot[compute] = true // reset, never booted again: the read-only node stays
	st := runRemediation(t, r, compute, remediate.ReadOnlyRootFS, RemediationWorkflow, KCPFailoverWorkflow)
	require.Equal(t, []string{"reprovision:failed", "mark-unhealthy:ok", "power-off:ok"}, ranSteps(st.Steps))
	require.True(t, strings.Contains(st.Steps[0].Detail, "still the boot from before the reset"), st.Steps[0].Detail)
	require.Equal(t, compute+" not-back", r.ejects[0])
}

func TestTheSiteVersionSourceReachesTheWait(t *testing.T) {
	src := model.NodeVersionSource{OSImagePattern: `^rackroll (\S+) `}
	f, res, _ := upgradeOne(t, func(f *fakeSite, _ *testsuite.TestWorkflowEnvironment) { f.st.NodeVersion = src })
	require.True(t, res.Succeeded, res.Error)
	require.Len(t, f.waits, 1)
	require.Equal(t, src, f.waits[0].VersionFrom, "the ledger's source, as the inventory set it")
}

func TestOnlyANonRetryableWatchFailureIsAHint(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"BMC hint", temporal.NewNonRetryableApplicationError("task Exception", "ReimageFailed", nil), true},
		{"retries exhausted on a flaky BMC", temporal.NewApplicationError("503", "Unavailable"), false},
		{"worker lost", temporal.NewTimeoutError(0, nil), false},
		{"cancelled", temporal.NewCanceledError(), false},
		{"plain", errors.New("x"), false},
	} {
		if got := isHint(tc.err); got != tc.want {
			t.Errorf("%s: isHint = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestNotBackSaysWhatWasSeen(t *testing.T) {
	last := kube.NodeStatus{Node: "n1", Exists: true, Ready: "True", RuntimeVersion: "4.1.2", BootID: "b1"}
	notReady := temporal.NewNonRetryableApplicationError(`node n1 not Ready within 3h0m0s: node n1 Ready=True, bootID b1 (still the boot from before the reset, bootID "b1": the machine did not boot again)`,
		kube.ErrNodeNotReady, nil, last)
	for _, tc := range []struct {
		name    string
		waitErr error
		want    []string
	}{
		{"the limit", notReady, []string{"node n1 did not come back on 4.2.0 within 3h0m0s (timeouts.reimage)", "the node showed last: node n1 Ready=True, bootID b1 (still the boot",
			"the BMC showed last: power On, health OK"}},
		{"the BMC's hint first", nil, []string{"the install on bmm1 failed before node n1 came back on 4.2.0", "the node showed last: node n1 Ready=True, runtime-version 4.1.2, bootID b1"}},
		{"the wait broke", errors.New("kubeconfig gone"), []string{"did not come back on 4.2.0 within 3h0m0s (timeouts.reimage): kubeconfig gone"}},
	} {
		got := notBack("bmm1", "4.2.0", limit{d: 3 * time.Hour, key: "timeouts.reimage"}, lastStatus(tc.waitErr, "n1"), tc.waitErr, "power On, health OK")
		if tc.waitErr == nil || !isNotReady(tc.waitErr) {
			got = notBack("bmm1", "4.2.0", limit{d: 3 * time.Hour, key: "timeouts.reimage"}, last, tc.waitErr, "power On, health OK")
		}
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q lacks %q", tc.name, got, w)
			}
		}
	}
	if got := lastStatus(notReady, "n1"); got.BootID != "b1" || !got.IsReady() {
		t.Errorf("the wait's details carry the last status: %+v", got)
	}
}
