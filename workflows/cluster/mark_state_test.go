package cluster

import (
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/require"
)

// Only a clear lifts the mark: status writes of every kind leave it, and
// the ledger of an older history keeps the message as the mark.
func TestTheLedgerKeepsTheMark(t *testing.T) {
	now := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	m := &model.UnhealthyMark{Reason: "gave up", Since: now, By: "remediate:site-a:x"}
	b := model.BMM{Name: "x", DetailedStatus: model.BMMProvisioned}
	api.ApplyPatch(&b, api.BMMPatch{DetailedStatus: api.Str(model.BMMError), MarkUnhealthy: m}, now)
	for _, p := range []api.BMMPatch{
		{DetailedStatusMessage: api.Str("Upgrade to 4.2.0 waits for remediate:site-a:x (remediation)")},
		{DetailedStatus: api.Str(model.BMMProvisioned), DetailedStatusMessage: api.Str("")},
		{MarkUnhealthy: &model.UnhealthyMark{Reason: "later", By: "failover:site-a"}},
	} {
		api.ApplyPatch(&b, p, now.Add(time.Hour))
		require.True(t, b.MarkedUnhealthy())
		require.Equal(t, *m, *b.Unhealthy, "the first mark stays")
		require.Equal(t, model.UnhealthyMessage, b.DetailedStatusMessage)
	}
	api.ApplyPatch(&b, api.BMMPatch{ClearUnhealthy: true, DetailedStatusMessage: api.Str("")}, now)
	require.False(t, b.MarkedUnhealthy())
	require.Nil(t, b.Unhealthy)

	// Before unhealthy-mark-state: the message was the mark.
	old := model.BMM{Name: "x", DetailedStatusMessage: model.UnhealthyMessage}
	api.ApplyPatchAs(&old, api.BMMPatch{DetailedStatusMessage: api.Str("something else")}, now, false)
	require.False(t, old.MarkedUnhealthy())
	api.ApplyPatchAs(&old, api.BMMPatch{MarkUnhealthy: m}, now, false)
	require.True(t, old.MarkedUnhealthy())
	require.Equal(t, model.UnhealthyMessage, old.DetailedStatusMessage)

	// A message-mark of an old ledger becomes a mark on the next write.
	conv := model.BMM{Name: "x", DetailedStatusMessage: model.UnhealthyMessage}
	api.ApplyPatch(&conv, api.BMMPatch{DetailedStatusMessage: api.Str("")}, now)
	require.NotNil(t, conv.Unhealthy)
	require.Equal(t, model.LegacyMarkBy, conv.Unhealthy.By)
	require.True(t, conv.MarkedUnhealthy())
}

// A ledger carried over from a run before the change (its mark only the
// message) converts it into a mark when it starts; from then on a status
// write leaves it, and the record names the mark's origin.
func TestTheLedgerConvertsMessageMarks(t *testing.T) {
	env := wftest.NewEnv()
	in := fourRackInput(t)
	carry := api.ClusterState{Cluster: model.Cluster{Name: "site-a", DetailedStatus: model.ClusterRunning, RuntimeVersion: "4.1.2"}}
	for _, a := range in.Placement {
		b := model.BMM{Name: a.Name, Roles: []model.Role{a.Role}, ManagementGroup: a.ManagementGroup, DetailedStatus: model.BMMProvisioned,
			ReadyState: model.ReadyTrue, RuntimeVersion: "4.1.2"}
		if a.Name == "rack2-c3" {
			b.DetailedStatus, b.DetailedStatusMessage = model.BMMError, model.UnhealthyMessage
		}
		carry.Cluster.BMMs = append(carry.Cluster.BMMs, b)
	}
	in.Carry = &carry
	var converted api.ClusterState
	var write wftest.UpdateResult
	env.RegisterDelayedCallback(func() {
		converted = queryState(t, env)
		wftest.SendUpdate(env, api.UpdateRecordBMM, "u1", &write, api.BMMPatch{BMM: "rack2-c3", DetailedStatusMessage: api.Str("Upgrade to 4.2.0 waits for remediate:site-a:rack2-c3 (remediation)")})
	}, time.Second)
	after := runUntil(t, env, in, 2*time.Second)
	require.NoError(t, write.Err)
	for _, st := range []api.ClusterState{converted, after} {
		b, _ := st.Cluster.BMM("rack2-c3")
		require.NotNil(t, b.Unhealthy)
		require.Equal(t, model.LegacyMarkBy, b.Unhealthy.By)
		require.Equal(t, model.UnhealthyMessage, b.DetailedStatusMessage)
	}
}
