package main

import (
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/stretchr/testify/require"
)

// A BMM's history has its own acts and the cluster's (resume), never
// another BMM's; without a BMM, every act. Rows merge with the workflows'
// by time.
func TestActRows(t *testing.T) {
	t0 := time.Date(2026, 11, 23, 4, 0, 0, 0, time.UTC)
	acts := []api.BreakGlassAct{
		{Time: t0, Act: api.ActForce, BMM: "rack1-c1", Holder: "action:s:rack1-c1:4", Reason: "r1", By: "alice", Detail: "forced restart"},
		{Time: t0.Add(time.Minute), Act: api.ActLeaseRelease, BMM: "rack1-c2", Holder: "action:s:rack1-c2:5", Reason: "r2"},
		{Time: t0.Add(2 * time.Minute), Act: api.ActResume, Reason: "r3", By: "bob", Detail: "was Degraded: storm"},
	}
	rows := actRows(acts, "s", "rack1-c1")
	require.Len(t, rows, 2)
	require.Equal(t, "break-glass force", rows[0].Operation)
	require.Equal(t, "action:s:rack1-c1:4", rows[0].WorkflowID)
	require.Equal(t, "forced restart; reason: r1 (by alice)", rows[0].Result)
	require.Equal(t, "break-glass resume", rows[1].Operation)
	require.Equal(t, "cluster:s", rows[1].WorkflowID)
	require.Equal(t, "bob", rows[1].By)

	all := actRows(acts, "s", "")
	require.Len(t, all, 3)
	require.Contains(t, all[1].Result, "(by an unnamed operator)")

	merged := mergeRows([]historyRow{{Time: t0.Add(90 * time.Second), Operation: "restart"}}, rows)
	require.Equal(t, []string{"break-glass force", "restart", "break-glass resume"},
		[]string{merged[0].Operation, merged[1].Operation, merged[2].Operation})
}
