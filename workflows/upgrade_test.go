package workflows

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/workflow"
)

func placedRoles(f *fakeSite) (kcp []string, spare string) {
	for _, b := range f.st.Cluster.BMMs {
		switch b.Roles[0] {
		case model.RoleKCP:
			kcp = append(kcp, b.Name)
		case model.RoleKCPSpare:
			spare = b.Name
		}
	}
	return kcp, spare
}

func rackOf(f *fakeSite, bmm string) string { return f.bmm(bmm).Rack }

// A full upgrade of examples/four-rack.yaml: the spare first, KCPs one at a
// time, the last KCP retires as the new spare, management then racks in
// order with no overlap, and the cluster ends Running on the target.
func TestRuntimeUpgradeFullFourRack(t *testing.T) {
	f, env := siteEnv(t, "../examples/four-rack.yaml")
	kcp, spare := placedRoles(f)
	require.Len(t, kcp, 3)

	env.ExecuteWorkflow(RuntimeUpgradeWorkflow, upgradeInput(model.UpdateStrategy{}))
	require.NoError(t, env.GetWorkflowError())
	var st api.UpgradeStatus
	require.NoError(t, env.GetWorkflowResult(&st))
	require.Equal(t, model.ClusterRunning, st.DetailedStatus, st.DetailedStatusMessage)
	require.Equal(t, api.PhaseDone, st.Phase)

	// KCP phase: spare, then two active KCPs; the third retires, not reimaged.
	require.Equal(t, []string{spare, kcp[0], kcp[1]}, f.reimages[:3])
	require.Equal(t, 1, f.maxKCP, "never more than one control-plane server out")
	require.Equal(t, model.RoleKCP, f.role(spare))
	require.Equal(t, model.RoleKCPSpare, f.role(kcp[2]))
	require.Equal(t, model.BMMAvailable, f.bmm(kcp[2]).DetailedStatus)

	vs := f.versions()
	for name, v := range vs {
		if name == kcp[2] {
			require.Equal(t, "4.1.2", v, "the new spare keeps its version (expected)")
			continue
		}
		require.Equal(t, "4.2.0", v, name)
	}
	require.Equal(t, "4.2.0", f.st.Cluster.RuntimeVersion)
	require.Equal(t, model.ClusterRunning, f.st.Cluster.DetailedStatus)
	require.Empty(t, f.st.Leases, "every lease released")
	require.Equal(t, map[string]bool{kcp[2]: true}, f.cordoned, "only the retired KCP stays cordoned: powered off, waiting as the spare")
	require.Equal(t, model.PowerOff, f.bmm(kcp[2]).PowerState)
	require.False(t, f.overlap, "servers of two racks never upgrade at once")

	// Compute racks in natural order, each rack's servers together.
	var racks []string
	for _, b := range f.reimages {
		if f.bmm(b).HasRole(model.RoleCompute) {
			r := rackOf(f, b)
			if len(racks) == 0 || racks[len(racks)-1] != r {
				racks = append(racks, r)
			}
		}
	}
	require.Equal(t, []string{"rack1", "rack2", "rack3", "rack4"}, racks)
	// Drains get the site's default 20 minutes (docs/behaviour.md#time-limits).
	require.Equal(t, 20*time.Minute, f.drains[0].Timeout)
	for _, r := range st.Racks {
		require.Equal(t, api.StateSucceeded, r.State)
		require.Equal(t, 8, r.Succeeded)
		require.NotNil(t, r.FinishedAt)
	}
}

// maxUnavailable bounds the servers of a rack in flight.
func TestRuntimeUpgradeHonoursMaxUnavailable(t *testing.T) {
	f, env := siteEnv(t, "../examples/four-rack.yaml")
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
		if r := rackOfChild(info); r != "" && f.bmm(strings.Split(info.WorkflowExecution.ID, ":")[2]).HasRole(model.RoleCompute) {
			inFlight[r]++
			maxInFlight[r] = max(maxInFlight[r], inFlight[r])
		}
	})
	env.SetOnChildWorkflowCompletedListener(func(info *workflow.Info, _ converter.EncodedValue, _ error) {
		mu.Lock()
		defer mu.Unlock()
		if r := rackOfChild(info); r != "" && f.bmm(strings.Split(info.WorkflowExecution.ID, ":")[2]).HasRole(model.RoleCompute) {
			inFlight[r]--
		}
	})
	env.ExecuteWorkflow(RuntimeUpgradeWorkflow, upgradeInput(model.UpdateStrategy{MaxUnavailable: 3, WaitTimeMinutes: intp(0)}))
	require.NoError(t, env.GetWorkflowError())
	require.Len(t, maxInFlight, 4)
	for r, m := range maxInFlight {
		require.Equal(t, 3, m, "rack %s: at most maxUnavailable servers at once, and that many", r)
	}
}

func init() {
	testWorkflows[api.RackUpgradeWorkflowName] = RackUpgradeWorkflow
	testWorkflows[api.ServerUpgradeWorkflowName] = ServerUpgradeWorkflow
}
