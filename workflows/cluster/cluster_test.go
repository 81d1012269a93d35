package cluster

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/activities/ledger"
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/lease"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/placement"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"
)

// exampleInput is the ledger input of examples/<name>.
func exampleInput(t *testing.T, name string) api.ClusterInput {
	t.Helper()
	inv, err := model.LoadInventory(wftest.Example(name))
	require.NoError(t, err)
	placed, err := placement.Place(inv)
	require.NoError(t, err)
	return api.ClusterInput{Inventory: *inv, Placement: placed}
}

func fourRackInput(t *testing.T) api.ClusterInput {
	t.Helper()
	return exampleInput(t, "four-rack.yaml")
}

// sweptLedger is a four-rack ledger whose lease sweep runs every sweep and
// asks la (mocked by the test) which holders still run.
func sweptLedger(t *testing.T, sweep time.Duration) (*testsuite.TestWorkflowEnvironment, *ledger.Activities, api.ClusterInput) {
	t.Helper()
	env := wftest.NewEnv()
	var la *ledger.Activities
	env.RegisterActivity(la)
	in := fourRackInput(t)
	in.LeaseSweep = sweep
	return env, la, in
}

func kcps(in api.ClusterInput) []string {
	var out []string
	for _, a := range in.Placement {
		if a.Role == model.RoleKCP {
			out = append(out, a.Name)
		}
	}
	return out
}

// queryState is the ledger's query state.
func queryState(t *testing.T, env *testsuite.TestWorkflowEnvironment) api.ClusterState {
	v, err := env.QueryWorkflow(api.QueryState)
	require.NoError(t, err)
	var st api.ClusterState
	require.NoError(t, v.Get(&st))
	return st
}

// runUntil runs the ledger on in until end, where it cancels the run, and
// returns the state the ledger had then.
func runUntil(t *testing.T, env *testsuite.TestWorkflowEnvironment, in api.ClusterInput, end time.Duration) api.ClusterState {
	t.Helper()
	var st api.ClusterState
	env.RegisterDelayedCallback(func() { st = queryState(t, env); env.CancelWorkflow() }, end)
	env.ExecuteWorkflow(ClusterWorkflow, in)
	return st
}

// Two disruptive actions on two KCP servers: the first is granted, the
// second refused with the reason, and the refusal writes nothing.
func TestClusterGrantsOneKCPDisruptionAtATime(t *testing.T) {
	env := wftest.NewEnv()
	in := fourRackInput(t)
	k := kcps(in)
	require.Len(t, k, 3)

	var first, second, compute, again wftest.UpdateResult
	env.RegisterDelayedCallback(func() {
		wftest.SendUpdate(env, api.UpdateAcquireLease, "u1", &first, lease.Request{BMM: k[0], Operation: "restart"})
		wftest.SendUpdate(env, api.UpdateAcquireLease, "u2", &second, lease.Request{BMM: k[1], Operation: "restart"})
		wftest.SendUpdate(env, api.UpdateAcquireLease, "u3", &compute, lease.Request{BMM: "rack2-c1", Operation: "reimage"})
	}, time.Second)
	env.RegisterDelayedCallback(func() {
		// After the first holder releases, the second KCP may go.
		var rel wftest.UpdateResult
		wftest.SendUpdate(env, api.UpdateReleaseLease, "u4", &rel, api.ReleaseRequest{BMM: k[0], Holder: api.ActionID("site-a", k[0], 1)})
		require.NoError(t, rel.Err)
		wftest.SendUpdate(env, api.UpdateAcquireLease, "u5", &again, lease.Request{BMM: k[1], Operation: "restart"})
	}, 2*time.Second)
	env.RegisterDelayedCallback(func() {
		st := queryState(t, env)
		require.Len(t, st.Leases, 2, "compute lease and the second KCP lease")
		require.Equal(t, 3, st.ActionSeq, "the refused request took no action number")
		env.CancelWorkflow()
	}, 3*time.Second)
	env.ExecuteWorkflow(ClusterWorkflow, in)

	require.True(t, first.Done && first.Rejected == nil && first.Err == nil, "first: %+v", first)
	require.Equal(t, api.ActionID("site-a", k[0], 1), first.Value.(api.AcquireResult).Holder)
	require.Error(t, second.Rejected)
	require.Contains(t, second.Rejected.Error(), "already disrupting KCP server "+k[0])
	require.NoError(t, compute.Rejected)
	require.True(t, again.Done && again.Rejected == nil, "second KCP after release: %+v", again)
}

func TestClusterRejectsUnknownBMMAndClusterNotRunning(t *testing.T) {
	env := wftest.NewEnv()
	in := fourRackInput(t)
	var unknown, status, whileFailed wftest.UpdateResult
	env.RegisterDelayedCallback(func() {
		wftest.SendUpdate(env, api.UpdateAcquireLease, "u1", &unknown, lease.Request{BMM: "rack9-c1", Operation: "restart"})
		wftest.SendUpdate(env, api.UpdateClusterStatus, "u2", &status, api.ClusterStatusPatch{DetailedStatus: model.ClusterFailed, DetailedStatusMessage: "KCP rack1-mgmt1 failed to upgrade"})
		wftest.SendUpdate(env, api.UpdateAcquireLease, "u3", &whileFailed, lease.Request{BMM: "rack1-c1", Operation: "restart"})
		env.CancelWorkflow()
	}, time.Second)
	env.ExecuteWorkflow(ClusterWorkflow, in)
	require.ErrorContains(t, unknown.Rejected, `bmm "rack9-c1" is not in cluster site-a`)
	require.NoError(t, status.Err)
	require.ErrorContains(t, whileFailed.Rejected, "is Failed, not Running: KCP rack1-mgmt1 failed to upgrade")
}

// A holder that was terminated never released its lease: the sweep asks
// Temporal and frees it.
func TestClusterReleasesLeaseOfTerminatedHolder(t *testing.T) {
	env, la, in := sweptLedger(t, time.Minute)
	env.OnActivity(la.HolderStates, mock.Anything, []string{"upgrade:site-a:rack1-c1"}).Return(map[string]bool{"upgrade:site-a:rack1-c1": false}, nil)

	var got wftest.UpdateResult
	env.RegisterDelayedCallback(func() {
		wftest.SendUpdate(env, api.UpdateAcquireLease, "u1", &got, lease.Request{BMM: "rack1-c1", Holder: "upgrade:site-a:rack1-c1", Operation: "upgrade"})
	}, time.Second)
	env.RegisterDelayedCallback(func() {
		st := queryState(t, env)
		require.Empty(t, st.Leases, "lease of the dead holder must be released")
		env.CancelWorkflow()
	}, 5*time.Minute)
	env.ExecuteWorkflow(ClusterWorkflow, in)
	require.NoError(t, got.Rejected)
	env.AssertExpectations(t)
}

// The ledger continues as new with its leases and counters intact.
func TestClusterContinuesAsNewKeepingLeases(t *testing.T) {
	env := wftest.NewEnv()
	in := fourRackInput(t)
	in.ContinueAsNewAfter = 30
	var results []*wftest.UpdateResult
	env.RegisterDelayedCallback(func() {
		for i, b := range []string{"rack1-c1", "rack1-c2", "rack1-c3", "rack2-c1", "rack2-c2", "rack2-c3"} {
			r := &wftest.UpdateResult{}
			results = append(results, r)
			wftest.SendUpdate(env, api.UpdateAcquireLease, "u"+b, r, lease.Request{BMM: b, Holder: "h" + string(rune('0'+i)), Operation: "cordon"})
		}
	}, time.Second)
	env.RegisterDelayedCallback(func() { env.SetCurrentHistoryLength(31) }, 2*time.Second)
	env.ExecuteWorkflow(ClusterWorkflow, in)
	err := env.GetWorkflowError()
	var can *workflow.ContinueAsNewError
	require.True(t, errors.As(err, &can), "want continue-as-new, got %v", err)
	require.Len(t, results, 6)
	for _, r := range results {
		require.True(t, r.Done)
		require.NoError(t, r.Rejected)
	}
	var next api.ClusterInput
	require.NoError(t, wftest.ConverterFor().FromPayloads(can.Input, &next))
	next = unpacked(t, next)
	require.NotNil(t, next.Carry)
	require.Len(t, next.Carry.Leases, 6)
	require.Equal(t, 1, next.Carry.Runs)
	require.True(t, strings.HasPrefix(next.Carry.Cluster.Name, "site-a"))
}

// Registering the same inventory again keeps facts a Replace wrote; facts
// the operator changed in the inventory win.
func TestClusterRegisterKeepsReplacedHardwareFacts(t *testing.T) {
	env := wftest.NewEnv()
	in := fourRackInput(t)
	var rec, reg1, reg2 wftest.UpdateResult
	changed := in.Inventory
	changed.Racks = append([]model.RackSpec(nil), in.Inventory.Racks...)
	changed.Racks[0].Servers = append([]model.ServerSpec(nil), in.Inventory.Racks[0].Servers...)
	changed.Racks[0].Servers[1].SerialNumber = "SN-EDITED"
	changed.Kubernetes.OSImagePattern = `^rackroll (\S+) `
	env.RegisterDelayedCallback(func() {
		wftest.SendUpdate(env, api.UpdateRecordBMM, "r", &rec, api.BMMPatch{BMM: "rack1-c1", SerialNumber: api.Str("SN-REPLACED")})
		wftest.SendUpdate(env, api.UpdateRegister, "g1", &reg1, api.RegisterRequest{Inventory: in.Inventory, Placement: in.Placement})
		wftest.SendUpdate(env, api.UpdateRegister, "g2", &reg2, api.RegisterRequest{Inventory: changed, Placement: in.Placement})
	}, time.Second)
	env.RegisterDelayedCallback(func() {
		st := queryState(t, env)
		c1, _ := st.Cluster.BMM("rack1-c1")
		require.Equal(t, "SN-REPLACED", c1.SerialNumber)
		edited, _ := st.Cluster.BMM(changed.Racks[0].Servers[1].Name)
		require.Equal(t, "SN-EDITED", edited.SerialNumber)
		require.Equal(t, model.NodeVersionSource{OSImagePattern: `^rackroll (\S+) `}, st.NodeVersion, "the site's version source")
		env.CancelWorkflow()
	}, 2*time.Second)
	env.ExecuteWorkflow(ClusterWorkflow, in)
	require.NoError(t, reg1.Err)
	require.NoError(t, reg2.Err)
}
