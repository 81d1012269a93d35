package cluster

import (
	"errors"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/keyset"
	"github.com/rackroll/rackroll/internal/keyset/keysettest"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"
)

// edKey is an OpenSSH ed25519 public key line made from seed, and its
// fingerprint as keyset derives it.
func edKey(t *testing.T, seed byte) (string, string) {
	t.Helper()
	line := keysettest.Line(seed, "test")
	k, err := keyset.ParsePublicKey(line)
	require.NoError(t, err)
	return line, k.Fingerprint
}

// keysetLedger is a four-rack ledger whose clock starts at a fixed time,
// returned (keysets expire and outcomes are dated from it), and whose
// lease sweep does not run in the minutes a keyset test takes.
func keysetLedger(t *testing.T) (*testsuite.TestWorkflowEnvironment, api.ClusterInput, time.Time) {
	t.Helper()
	start := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	env := wftest.NewEnv()
	env.SetStartTime(start)
	in := fourRackInput(t)
	in.LeaseSweep = time.Hour
	return env, in, start
}

// The ledger's keysets: created, listed redacted (the state and bmm
// queries too), replaced (creation time kept), deleted; bad input is
// refused by the validators with every problem named and changes
// nothing; a continue-as-new carries the keysets with their keys.
func TestClusterKeysets(t *testing.T) {
	env, in, start := keysetLedger(t)
	in.ContinueAsNewAfter = 1000
	alice, aliceFP := edKey(t, 1)
	bob, bobFP := edKey(t, 2)
	bmm := keyset.Spec{Name: "oncall", Kind: keyset.KindBMM, PrivilegeLevel: keyset.Superuser, Expiration: start.Add(2 * time.Hour),
		Users: []keyset.User{{Name: "alice", SSHPublicKey: alice}, {Name: "bob", SSHPublicKey: bob}}}
	bmc := keyset.Spec{Name: "bmc-oncall", Kind: keyset.KindBMC, Role: keyset.ReadOnly, Expiration: start.Add(24 * time.Hour),
		Accounts: []keyset.Account{{Name: "alice", PasswordSecretRef: keyset.SecretRef{Namespace: "rackroll", Name: "bmc-alice", Key: "password"}}}}
	bad := bmm
	bad.Name, bad.PrivilegeLevel, bad.Expiration = "bad", "root", start.Add(-time.Hour)

	var created, createdBMC, dup, badRes, updated, gone, deleted, noSuch wftest.UpdateResult
	var mid, end []keyset.Keyset
	var midState api.ClusterState
	var midBMM api.ClusterState
	env.RegisterDelayedCallback(func() {
		wftest.SendUpdate(env, api.UpdateKeysetCreate, "k1", &created, api.KeysetRequest{Keyset: bmm, By: "alice"})
		wftest.SendUpdate(env, api.UpdateKeysetCreate, "k2", &createdBMC, api.KeysetRequest{Keyset: bmc, By: "alice"})
		wftest.SendUpdate(env, api.UpdateKeysetCreate, "k3", &dup, api.KeysetRequest{Keyset: bmm})
		wftest.SendUpdate(env, api.UpdateKeysetCreate, "k4", &badRes, api.KeysetRequest{Keyset: bad})
	}, time.Second)
	env.RegisterDelayedCallback(func() {
		mid = queryKeysets(t, env)
		midState = queryState(t, env)
		v, err := env.QueryWorkflow(api.QueryBMM, "rack1-c1")
		require.NoError(t, err)
		require.NoError(t, v.Get(&midBMM))
		up := bmm
		up.PrivilegeLevel, up.Users = keyset.Standard, bmm.Users[1:]
		wftest.SendUpdate(env, api.UpdateKeysetUpdate, "k5", &updated, api.KeysetRequest{Keyset: up, By: "bob"})
		wftest.SendUpdate(env, api.UpdateKeysetDelete, "k6", &deleted, api.KeysetDeleteRequest{Name: "bmc-oncall", By: "bob"})
		wftest.SendUpdate(env, api.UpdateKeysetDelete, "k7", &noSuch, api.KeysetDeleteRequest{Name: "nope"})
	}, time.Minute)
	env.RegisterDelayedCallback(func() {
		wftest.SendUpdate(env, api.UpdateKeysetDelete, "k8", &gone, api.KeysetDeleteRequest{Name: "bmc-oncall"})
	}, 90*time.Second)
	env.RegisterDelayedCallback(func() {
		end = queryKeysets(t, env)
		env.SetCurrentHistoryLength(1001)
	}, 2*time.Minute)
	env.ExecuteWorkflow(ClusterWorkflow, in)

	require.NoError(t, created.Rejected)
	require.NoError(t, created.Err)
	k := created.Value.(keyset.Keyset)
	require.Equal(t, []string{aliceFP, bobFP}, []string{k.Users[0].Fingerprint, k.Users[1].Fingerprint})
	require.Empty(t, k.Users[0].SSHPublicKey, "the Update's answer shows no key")
	require.Equal(t, start.Add(time.Second), k.Created)
	require.NoError(t, createdBMC.Err)
	require.ErrorContains(t, dup.Rejected, "a keyset of that name exists")
	require.ErrorContains(t, badRes.Rejected, `privilegeLevel: "root" — allowed: standard, superuser`)
	require.ErrorContains(t, badRes.Rejected, `expiration: "2026-11-27T11:00:00Z" — in the past (now is 2026-11-27T12:00:01Z)`)

	require.Len(t, mid, 2, "the refused creates wrote nothing")
	require.Equal(t, "bmc-oncall", mid[0].Name)
	for _, st := range []api.ClusterState{midState, midBMM} {
		require.Len(t, st.Keysets, 2)
		require.Equal(t, aliceFP, st.Keysets[1].Users[0].Fingerprint)
		require.Empty(t, st.Keysets[1].Users[0].SSHPublicKey, "queries never carry a key")
	}
	require.Empty(t, mid[1].Users[0].SSHPublicKey)

	require.NoError(t, updated.Err)
	require.NoError(t, deleted.Err)
	require.Equal(t, "bmc-oncall", deleted.Value.(keyset.Keyset).Name)
	require.ErrorContains(t, noSuch.Rejected, `name: "nope" — no keyset of that name (the cluster has oncall)`)
	require.ErrorContains(t, gone.Rejected, `no keyset of that name (the cluster has oncall)`)
	require.Len(t, end, 1)
	require.Equal(t, keyset.Standard, end[0].PrivilegeLevel)
	require.Equal(t, []string{"bob"}, end[0].Members())
	require.Equal(t, "bob", end[0].By)
	require.Equal(t, start.Add(time.Second), end[0].Created, "an update keeps the creation time")
	require.Equal(t, start.Add(time.Minute), end[0].Updated)

	var can *workflow.ContinueAsNewError
	require.True(t, errors.As(env.GetWorkflowError(), &can), "%v", env.GetWorkflowError())
	var next api.ClusterInput
	require.NoError(t, wftest.ConverterFor().FromPayloads(can.Input, &next))
	next = unpacked(t, next)
	require.Len(t, next.Carry.Keysets, 1)
	require.Equal(t, bob, next.Carry.Keysets[0].Users[0].SSHPublicKey, "the ledger itself keeps the key across runs")
}

func queryKeysets(t *testing.T, env *testsuite.TestWorkflowEnvironment) []keyset.Keyset {
	t.Helper()
	v, err := env.QueryWorkflow(api.QueryKeysets)
	require.NoError(t, err)
	var out []keyset.Keyset
	require.NoError(t, v.Get(&out))
	return out
}
