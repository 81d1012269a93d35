package upgrade

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/rackroll/rackroll/workflows/upgrade/server"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"
)

func rackOf(f *wftest.FakeSite, bmm string) string { return f.Bmm(bmm).Rack }

// A full upgrade of examples/four-rack.yaml: the spare first, KCPs one at a
// time, the last KCP retires as the new spare, management then racks in
// order with no overlap, and the cluster ends Running on the target.
func TestRuntimeUpgradeFullFourRack(t *testing.T) {
	f, env := wftest.SiteEnv(t, wftest.Example("four-rack.yaml"))
	kcp, spare := wftest.PlacedRoles(f)
	require.Len(t, kcp, 3)

	env.ExecuteWorkflow(RuntimeUpgradeWorkflow, wftest.UpgradeInput(model.UpdateStrategy{}))
	require.NoError(t, env.GetWorkflowError())
	var st api.UpgradeStatus
	require.NoError(t, env.GetWorkflowResult(&st))
	require.Equal(t, model.ClusterRunning, st.DetailedStatus, st.DetailedStatusMessage)
	require.Equal(t, api.PhaseDone, st.Phase)

	// KCP phase: spare, then two active KCPs; the third retires, not reimaged.
	require.Equal(t, []string{spare, kcp[0], kcp[1]}, f.Reimages[:3])
	require.Equal(t, 1, f.MaxKCP, "never more than one control-plane server out")
	require.Equal(t, model.RoleKCP, f.Role(spare))
	require.Equal(t, model.RoleKCPSpare, f.Role(kcp[2]))
	require.Equal(t, model.BMMAvailable, f.Bmm(kcp[2]).DetailedStatus)

	vs := f.Versions()
	for name, v := range vs {
		if name == kcp[2] {
			require.Equal(t, "4.1.2", v, "the new spare keeps its version (expected)")
			continue
		}
		require.Equal(t, "4.2.0", v, name)
	}
	require.Equal(t, "4.2.0", f.St.Cluster.RuntimeVersion)
	require.Equal(t, model.ClusterRunning, f.St.Cluster.DetailedStatus)
	require.Empty(t, f.St.Leases, "every lease released")
	require.Equal(t, map[string]bool{kcp[2]: true}, f.Cordoned, "only the retired KCP stays cordoned: powered off, waiting as the spare")
	require.Equal(t, model.PowerOff, f.Bmm(kcp[2]).PowerState)
	require.False(t, f.Overlap, "servers of two racks never upgrade at once")

	// Compute racks in natural order, each rack's servers together.
	var racks []string
	for _, b := range f.Reimages {
		if f.Bmm(b).HasRole(model.RoleCompute) {
			r := rackOf(f, b)
			if len(racks) == 0 || racks[len(racks)-1] != r {
				racks = append(racks, r)
			}
		}
	}
	require.Equal(t, []string{"rack1", "rack2", "rack3", "rack4"}, racks)
	// Drains get the site's default 20 minutes (docs/behaviour.md#time-limits).
	require.Equal(t, 20*time.Minute, f.Drains[0].Timeout)
	for _, r := range st.Racks {
		require.Equal(t, api.StateSucceeded, r.State)
		require.Equal(t, 8, r.Succeeded)
		require.NotNil(t, r.FinishedAt)
	}
}

// maxUnavailable bounds the servers of a rack in flight.
func TestRuntimeUpgradeHonoursMaxUnavailable(t *testing.T) {
	f, env := wftest.SiteEnv(t, wftest.Example("four-rack.yaml"))
	var mu sync.Mutex
	inFlight, maxInFlight := map[string]int{}, map[string]int{}
	rackOfChild := func(info *workflow.Info) string {
		if info.WorkflowType.Name != api.ServerUpgradeWorkflowName {
			return ""
		}
		parts := strings.Split(info.WorkflowExecution.ID, ":")
		return rackOf(f, parts[len(parts)-1])
	}
	env.SetOnChildWorkflowStartedListener(func(info *workflow.Info, _ workflow.Context, _ converter.EncodedValues) {
		mu.Lock()
		defer mu.Unlock()
		if r := rackOfChild(info); r != "" && f.Bmm(strings.Split(info.WorkflowExecution.ID, ":")[2]).HasRole(model.RoleCompute) {
			inFlight[r]++
			maxInFlight[r] = max(maxInFlight[r], inFlight[r])
		}
	})
	env.SetOnChildWorkflowCompletedListener(func(info *workflow.Info, _ converter.EncodedValue, _ error) {
		mu.Lock()
		defer mu.Unlock()
		if r := rackOfChild(info); r != "" && f.Bmm(strings.Split(info.WorkflowExecution.ID, ":")[2]).HasRole(model.RoleCompute) {
			inFlight[r]--
		}
	})
	env.ExecuteWorkflow(RuntimeUpgradeWorkflow, wftest.UpgradeInput(model.UpdateStrategy{MaxUnavailable: 3, WaitTimeMinutes: wftest.Intp(0)}))
	require.NoError(t, env.GetWorkflowError())
	require.Len(t, maxInFlight, 4)
	for r, m := range maxInFlight {
		require.Equal(t, 3, m, "rack %s: at most maxUnavailable servers at once, and that many", r)
	}
}

func init() {
	wftest.Workflows[api.RackUpgradeWorkflowName] = RackUpgradeWorkflow
	wftest.Workflows[api.ServerUpgradeWorkflowName] = server.ServerUpgradeWorkflow
}

// pauseThenContinue, at d into the run, reads the upgrade's status into
// paused and sends it a continue; the continue's result is returned.
func pauseThenContinue(t *testing.T, env *testsuite.TestWorkflowEnvironment, paused *api.UpgradeStatus, d time.Duration) *wftest.UpdateResult {
	var cont wftest.UpdateResult
	env.RegisterDelayedCallback(func() {
		wftest.Query(t, env, paused)
		wftest.SendUpdate(env, api.UpdateContinue, "c1", &cont, nil)
	}, d)
	return &cont
}
