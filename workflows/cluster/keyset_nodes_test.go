package cluster

import (
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/keyset"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/require"
)

// The BMM keysets' outcomes: the node-keys query answers the set with its
// keys at the time asked; the ledger records a node's outcome under every
// BMM keyset of the set it was given, and as removed under a BMM keyset
// expired by then; it refuses a request that is not one (naming each
// field) and outcomes of a set it no longer has.
func TestClusterKeysetNodeOutcomes(t *testing.T) {
	env, in, start := keysetLedger(t)
	alice, _ := edKey(t, 1)
	bob, _ := edKey(t, 2)
	oncall := keyset.Spec{Name: "oncall", Kind: keyset.KindBMM, PrivilegeLevel: keyset.Superuser, Expiration: start.Add(2 * time.Hour),
		Users: []keyset.User{{Name: "alice", SSHPublicKey: alice}}}
	night := keyset.Spec{Name: "night", Kind: keyset.KindBMM, PrivilegeLevel: keyset.Standard, Expiration: start.Add(time.Hour),
		Users: []keyset.User{{Name: "bob", SSHPublicKey: bob}}}
	at := start.Add(time.Minute)

	var c1, c2, rec, bad, stale, later wftest.UpdateResult
	var keys keyset.NodeKeys
	var want keyset.NodeReport
	var after api.ClusterState
	env.RegisterDelayedCallback(func() {
		wftest.SendUpdate(env, api.UpdateKeysetCreate, "c1", &c1, api.KeysetRequest{Keyset: oncall})
		wftest.SendUpdate(env, api.UpdateKeysetCreate, "c2", &c2, api.KeysetRequest{Keyset: night})
	}, time.Second)
	env.RegisterDelayedCallback(func() {
		v, err := env.QueryWorkflow(api.QueryNodeKeys, at)
		require.NoError(t, err)
		require.NoError(t, v.Get(&keys))
		want = keyset.Wanted(queryState(t, env).Keysets, at) // from the redacted state
		outs := []keyset.Outcome{
			{BMM: "rack1-c1", State: keyset.Applied, At: at},
			{BMM: "rack1-c2", State: keyset.Failed, Reason: "node rack1-c2 did not run the keyset pod", At: at},
			{BMM: "gone-bmm", State: keyset.Applied, At: at},
		}
		wftest.SendUpdate(env, api.UpdateKeysetOutcomes, "o1", &rec, api.KeysetOutcomesRequest{Nodes: &want, At: at, Outcomes: outs})
		wftest.SendUpdate(env, api.UpdateKeysetOutcomes, "o2", &bad, api.KeysetOutcomesRequest{Name: "oncall", Nodes: &want,
			Outcomes: []keyset.Outcome{{State: keyset.Disabled}}})
		other := keyset.NodeReport{Users: 1, Digest: "sha256:x"}
		wftest.SendUpdate(env, api.UpdateKeysetOutcomes, "o3", &stale, api.KeysetOutcomesRequest{Nodes: &other, At: at, Outcomes: outs[:1]})
	}, time.Minute)
	env.RegisterDelayedCallback(func() {
		after = queryState(t, env)
		// At 1 h 30 min night has expired: the set is oncall's alone.
		late := start.Add(90 * time.Minute)
		w := keyset.Wanted(after.Keysets, late)
		wftest.SendUpdate(env, api.UpdateKeysetOutcomes, "o4", &later, api.KeysetOutcomesRequest{Nodes: &w, At: late,
			Outcomes: []keyset.Outcome{{BMM: "rack1-c2", State: keyset.Applied, At: late}}})
	}, 2*time.Minute)
	afterLater := runUntil(t, env, in, 3*time.Minute)

	require.NoError(t, c1.Err)
	require.NoError(t, c2.Err)
	require.Equal(t, []string{"alice", "bob"}, []string{keys.Users[0].Name, keys.Users[1].Name})
	require.Equal(t, alice, keys.Users[0].Key, "the query carries the keys: the pod's content")
	require.NoError(t, keyset.CheckReport(keys, want), "the redacted state's report is the set's")
	require.NoError(t, rec.Rejected)
	require.NoError(t, rec.Err)
	for _, name := range []string{"oncall", "night"} {
		k, _ := keyset.Find(after.Keysets, name)
		require.Equal(t, []keyset.Outcome{
			{BMM: "rack1-c1", State: keyset.Applied, At: at},
			{BMM: "rack1-c2", State: keyset.Failed, Reason: "node rack1-c2 did not run the keyset pod", At: at},
		}, k.Outcomes, "keyset %s: each node's outcome, none of a BMM not in the cluster", name)
	}
	for _, want := range []string{"name: \"oncall\"", `at: "" — required`, `outcomes[0].bmm: "" — required`, "outcomes[0].state: \"disabled\"", "applied, failed or pending"} {
		require.ErrorContains(t, bad.Rejected, want)
	}
	require.ErrorContains(t, stale.Rejected, "nodes: 1 users (digest sha256:x) — the BMM keysets of cluster")
	require.ErrorContains(t, stale.Rejected, "are 2 users")

	require.NoError(t, later.Rejected)
	k, _ := keyset.Find(afterLater.Keysets, "oncall")
	require.Equal(t, keyset.Applied, keyset.OutcomesFor(k, []string{"rack1-c2"})[0].State, "oncall is in the later set")
	k, _ = keyset.Find(afterLater.Keysets, "night")
	require.Equal(t, keyset.Removed, keyset.OutcomesFor(k, []string{"rack1-c2"})[0].State,
		"night expired before the set was applied: the node given the set without it no longer has its users")
	require.Equal(t, keyset.Applied, keyset.OutcomesFor(k, []string{"rack1-c1"})[0].State, "a node the later set did not reach keeps its outcome")
}
