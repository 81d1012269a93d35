package cluster

import (
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/keyset"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/require"
)

// The ledger keeps what a KeysetWorkflow found on each BMC: outcomes of
// the keyset's current version only (a superseded run is refused, without
// a trace), none for a BMM that left; a deleted BMC keyset is kept aside
// with its disabling's outcomes until it is created again.
func TestClusterKeysetOutcomes(t *testing.T) {
	env, in, start := keysetLedger(t)
	spec := keyset.Spec{Name: "bmc-oncall", Kind: keyset.KindBMC, Role: keyset.Operator, Expiration: start.Add(24 * time.Hour),
		Accounts: []keyset.Account{{Name: "alice", PasswordSecretRef: keyset.SecretRef{Namespace: "rackroll", Name: "bmc-alice", Key: "password"}}}}
	v1 := start.Add(time.Second)
	at := func(d time.Duration) time.Time { return start.Add(d) }

	var created, applied, stale, deleted, disabled, again wftest.UpdateResult
	var afterApply, afterDelete, oneBMM api.ClusterState
	env.RegisterDelayedCallback(func() {
		wftest.SendUpdate(env, api.UpdateKeysetCreate, "c", &created, api.KeysetRequest{Keyset: spec})
	}, time.Second)
	env.RegisterDelayedCallback(func() {
		wftest.SendUpdate(env, api.UpdateKeysetOutcomes, "o1", &applied, api.KeysetOutcomesRequest{Name: spec.Name, Version: v1, Outcomes: []keyset.Outcome{
			{BMM: "rack1-c1", State: keyset.Applied, Role: keyset.Operator, At: at(time.Minute)},
			{BMM: "rack1-c2", State: keyset.Failed, Reason: "account alice: no room", At: at(time.Minute)},
			{BMM: "gone-bmm", State: keyset.Applied, At: at(time.Minute)},
		}})
		wftest.SendUpdate(env, api.UpdateKeysetOutcomes, "o2", &stale, api.KeysetOutcomesRequest{Name: spec.Name, Version: start, Outcomes: []keyset.Outcome{
			{BMM: "rack1-c1", State: keyset.Failed, Reason: "old", At: at(time.Minute)},
		}})
	}, time.Minute)
	env.RegisterDelayedCallback(func() {
		afterApply = queryState(t, env)
		v, err := env.QueryWorkflow(api.QueryBMM, "rack1-c2")
		require.NoError(t, err)
		require.NoError(t, v.Get(&oneBMM))
		wftest.SendUpdate(env, api.UpdateKeysetDelete, "d", &deleted, api.KeysetDeleteRequest{Name: spec.Name, By: "bob"})
	}, 2*time.Minute)
	env.RegisterDelayedCallback(func() {
		wftest.SendUpdate(env, api.UpdateKeysetOutcomes, "o3", &disabled, api.KeysetOutcomesRequest{Name: spec.Name, Deleted: true, Version: at(2 * time.Minute),
			Outcomes: []keyset.Outcome{{BMM: "rack1-c1", State: keyset.Disabled, At: at(3 * time.Minute)}}})
	}, 3*time.Minute)
	env.RegisterDelayedCallback(func() {
		afterDelete = queryState(t, env)
		wftest.SendUpdate(env, api.UpdateKeysetCreate, "c2", &again, api.KeysetRequest{Keyset: spec})
	}, 4*time.Minute)
	afterAgain := runUntil(t, env, in, 5*time.Minute)

	require.NoError(t, created.Err)
	require.NoError(t, applied.Rejected)
	require.NoError(t, applied.Err)
	require.ErrorContains(t, stale.Rejected, "keyset bmc-oncall is at version 2026-11-27T12:00:01Z now: superseded")
	k, _ := keyset.Find(afterApply.Keysets, spec.Name)
	require.Equal(t, []keyset.Outcome{
		{BMM: "rack1-c1", State: keyset.Applied, Role: keyset.Operator, At: at(time.Minute)},
		{BMM: "rack1-c2", State: keyset.Failed, Reason: "account alice: no room", At: at(time.Minute)},
	}, k.Outcomes, "the current version's outcomes, none of a BMM not in the cluster nor of a stale run")
	require.Equal(t, keyset.Pending, keyset.OutcomesFor(k, []string{"rack1-c3"})[0].State)
	require.Equal(t, []keyset.Outcome{{BMM: "rack1-c2", State: keyset.Failed, Reason: "account alice: no room", At: at(time.Minute)}},
		oneBMM.Keysets[0].Outcomes, "a server's view of the ledger has its own outcomes only")

	require.NoError(t, deleted.Err)
	require.NoError(t, disabled.Rejected)
	require.Empty(t, afterDelete.Keysets)
	require.Len(t, afterDelete.RemovedKeysets, 1)
	gone := afterDelete.RemovedKeysets[0]
	require.Equal(t, at(2*time.Minute), gone.Updated)
	require.Equal(t, "bob", gone.By)
	require.Equal(t, []keyset.Outcome{{BMM: "rack1-c1", State: keyset.Disabled, At: at(3 * time.Minute)}}, gone.Outcomes,
		"the deleted keyset's outcomes are its disabling's, not its applying's")

	require.NoError(t, again.Err)
	require.Empty(t, afterAgain.RemovedKeysets, "created again: no longer a removed keyset")
	k, _ = keyset.Find(afterAgain.Keysets, spec.Name)
	require.Empty(t, k.Outcomes, "a new version starts pending everywhere")
}
