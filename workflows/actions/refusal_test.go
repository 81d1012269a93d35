package actions

import (
	"testing"

	"github.com/rackroll/rackroll/activities/ledger"
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/lease"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"
)

// startAs runs in as the starter does: the ledger's lease for run n of the
// BMM first (refused as the ledger would, "busy" included), then the
// workflow under that id.
func startAs(t *testing.T, s *wftest.FakeSite, n int, in api.ActionInput, pin func(*testsuite.TestWorkflowEnvironment)) (api.ActionResult, error) {
	t.Helper()
	id := api.ActionID(in.Cluster, in.BMM, n)
	s.Mu.Lock()
	err := lease.Check(s.St.Cluster, s.St.Leases, lease.Request{BMM: in.BMM, Holder: id, Operation: lease.Operation(in.Action)})
	s.Mu.Unlock()
	if err != nil {
		return api.ActionResult{}, err
	}
	s.HoldLease(t, in.BMM, id, in.Action)
	env := s.Env(t, id)
	if pin != nil {
		pin(env)
	}
	return wftest.RunActionIn(t, env, in)
}

// Issue 48: a replace refused for safeguard mode gives back the lease the
// starter took for it before it answers, and its message is the retry to
// run; that retry, at once, runs (no "busy"), the firmware applied first.
func TestRefusedReplaceRetriedAtOnce(t *testing.T) {
	s := fwSite(t)
	in := replaceIn(true)
	in.SafeguardMode = "" // All, the default: the BMM is Ready and not cordoned
	_, err := startAs(t, s, 1, in, nil)
	requireAppErrorType(t, err, api.ErrPrecheck)
	assert.ErrorContains(t, err, "bmm rack1-c1 is healthy and not cordoned")
	retry := "`starter bmm replace --cluster site-a --bmm rack1-c1 --safeguard-mode None --apply-firmware`"
	assert.ErrorContains(t, err, retry, "the retry keeps --apply-firmware")
	assert.Empty(t, s.Leases(), "given back when the refusal answers")
	assert.Empty(t, s.CallLog(), "no side effect")

	res, err := startAs(t, s, 2, replaceIn(true), nil)
	require.NoError(t, err, "the retry the refusal names runs at once")
	assert.Equal(t, []string{"BIOS 1.10.0 → 1.13.2", "iDRAC 6.10.00.00 → 7.00.30.00"}, res.Firmware)
	assert.Equal(t, model.BMMProvisioned, s.LedgerBMM(wftest.Compute).DetailedStatus)
	assert.Empty(t, s.Leases())
}

// Every refusal before the lease — a pre-check, the ledger or the live
// gate — gives back the starter's lease before it answers.
func TestEveryRefusalGivesBackTheStartersLease(t *testing.T) {
	for _, tc := range []struct {
		name    string
		in      func(s *wftest.FakeSite) api.ActionInput
		errType string
		want    string
	}{
		{name: "restart of an Unhealthy BMM", errType: api.ErrPrecheck, want: "only replace returns it to service",
			in: func(s *wftest.FakeSite) api.ActionInput {
				s.Bmm(wftest.Compute).DetailedStatusMessage = model.UnhealthyMessage
				return wftest.Act(api.ActionRestart, wftest.Compute)
			}},
		{name: "replace with unknown credentials", errType: api.ErrPrecheck, want: `bmcCredentials "idrac"`,
			in: func(*wftest.FakeSite) api.ActionInput {
				return api.ActionInput{Cluster: "site-a", BMM: wftest.Compute, Action: api.ActionReplace, ReplaceParams: api.ReplaceParams{BMCCredentials: "idrac"}}
			}},
		{name: "KCP restart the live gate refuses", errType: ledger.ErrLeaseRejected, want: "is unhealthy",
			in: func(s *wftest.FakeSite) api.ActionInput {
				kcp, _ := wftest.PlacedRoles(s)
				s.Set(kcp[1], func(n *wftest.FakeNode) { n.Ready = model.ReadyUnknown })
				return wftest.Act(api.ActionRestart, kcp[0])
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := wftest.NewActionSite(t)
			_, err := startAs(t, s, 1, tc.in(s), nil)
			requireAppErrorType(t, err, tc.errType)
			require.ErrorContains(t, err, tc.want)
			require.Empty(t, s.Leases())
			require.Empty(t, s.CallLog())
		})
	}
}

// A run from before the change (its history has no marker) keeps the lease
// to the ledger's sweep, as it did: recorded histories replay.
func TestRefusalBeforeTheChangeKeepsTheLease(t *testing.T) {
	s := fwSite(t)
	in := replaceIn(false)
	in.SafeguardMode = ""
	_, err := startAs(t, s, 1, in, func(env *testsuite.TestWorkflowEnvironment) {
		env.OnGetVersion(changeRefusalReleases, workflow.DefaultVersion, 1).Return(workflow.DefaultVersion)
	})
	requireAppErrorType(t, err, api.ErrPrecheck)
	require.Len(t, s.Leases(), 1)
	_, err = startAs(t, s, 2, replaceIn(true), nil)
	require.ErrorContains(t, err, "bmm rack1-c1 is busy: action:site-a:rack1-c1:1 (replace) holds it")
}
