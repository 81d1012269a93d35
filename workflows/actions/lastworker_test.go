package actions

import (
	"testing"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/require"
)

// The last Ready rackroll worker runs on the BMM's node: an action that
// drains it fails naming the pod and the node, and nothing after the drain
// runs (no VM shutdown, no reimage) — the drain's own rule
// (internal/workerguard), whichever action drains.
func TestActionsNeverTakeTheLastWorker(t *testing.T) {
	const pod = "rackroll/rackroll-worker-a"
	for _, tc := range []struct {
		name  string
		in    api.ActionInput
		setup func(s *wftest.FakeSite)
		calls []string
	}{
		{name: "cordon evacuate", in: api.ActionInput{Cluster: "site-a", BMM: wftest.Compute, Action: api.ActionCordon, Evacuate: true},
			calls: []string{"Cordon rack1-c1", "Drain rack1-c1"}},
		{name: "reimage", in: wftest.Act(api.ActionReimage, wftest.Compute),
			calls: []string{"Cordon rack1-c1", "Drain rack1-c1"}},
		// Cordoned and marked, but still Ready: a replace drains it too.
		{name: "replace of a cordoned Unhealthy node still Ready", in: wftest.Act(api.ActionReplace, wftest.Compute),
			setup: func(s *wftest.FakeSite) {
				b := s.Bmm(wftest.Compute)
				b.CordonStatus, b.DetailedStatusMessage = model.Cordoned, model.UnhealthyMessage
			},
			calls: []string{"Cordon rack1-c1", "Drain rack1-c1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := wftest.NewActionSite(t)
			s.LastWorker = map[string]string{wftest.Compute: pod}
			if tc.setup != nil {
				tc.setup(s)
			}
			_, err := s.RunAction(t, tc.in)
			require.ErrorContains(t, err, "drain of node rack1-c1 refused: pod "+pod+" on node rack1-c1 is the last Ready rackroll worker")
			require.Equal(t, tc.calls, s.CallLog(), "nothing after the drain")
			require.True(t, s.Nodes[wftest.Compute].Exists)
			require.Empty(t, s.Leases())
		})
	}
}
