package cluster

import (
	"context"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
)

// The ledger labels a node again when a workflow saw it without the
// labels the ledger owns (a Node its kubelet registered anew with its
// --node-labels), from what the ledger holds, and leaves alone a node
// seen as it should be.
func TestLedgerRelabelsANodeSeenWithOtherLabels(t *testing.T) {
	env := wftest.NewEnv()
	in := fourRackInput(t)
	b := ""
	for _, a := range in.Placement {
		if a.Role == model.RoleManagement && b == "" {
			b = a.Name
		}
	}
	require.NotEmpty(t, b)
	type call struct {
		node   string
		labels map[string]string
	}
	var calls []call
	env.OnActivity(ka.LabelNode, mock.Anything, mock.Anything, mock.Anything).Return(
		func(_ context.Context, node string, labels map[string]string) error {
			calls = append(calls, call{node, labels})
			return nil
		})
	var want map[string]string
	env.RegisterDelayedCallback(func() {
		st := queryState(t, env)
		bm, _ := st.Cluster.BMM(b)
		want = model.ManagedNodeLabels(*bm)
		for i, seen := range []map[string]string{
			want, // as the ledger labelled it: nothing to do
			{model.LabelRole: "kcp", model.LabelManagementGroup: ""}, // registered anew
		} {
			var res wftest.UpdateResult
			wftest.SendUpdate(env, api.UpdateRecordBMM, "r"+string(rune('0'+i)), &res, api.BMMPatch{BMM: b, NodeLabels: seen})
			require.NoError(t, res.Err)
		}
	}, time.Second)
	env.RegisterDelayedCallback(env.CancelWorkflow, 2*time.Second)
	env.ExecuteWorkflow(ClusterWorkflow, in)

	require.Equal(t, "management", want[model.LabelRole])
	require.NotEmpty(t, want[model.LabelManagementGroup])
	require.Equal(t, []call{{b, want}}, calls, "one relabel, with the ledger's labels")
}
