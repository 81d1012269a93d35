package keyset

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// What a node should have: the users of the BMM keysets not expired, in
// name order; the node's answer matches only the exact set.
func TestNodeContract(t *testing.T) {
	keys := testKeys(t)
	oncall := bmmSpec(t) // alice, bob: superuser, 48 h
	night := Spec{Name: "night", Kind: KindBMM, PrivilegeLevel: Standard, Expiration: now.Add(time.Hour),
		Users: []User{{Name: "aaron", SSHPublicKey: keys["ecdsa256"].line}}}
	list := Put(Put(Put(nil, oncall, "", now), night, "", now), bmcSpec(), "", now)

	want := ForNodes(list, now)
	require.Equal(t, []string{"aaron", "alice", "bob"}, []string{want.Users[0].Name, want.Users[1].Name, want.Users[2].Name})
	require.Equal(t, NodeUser{Name: "aaron", Keyset: "night", Privilege: Standard, Key: keys["ecdsa256"].line}, want.Users[0])
	require.Equal(t, []NodeUser{}, ForNodes(list, now.Add(49*time.Hour)).Users, "expired keysets give nothing; the node's rackroll users are removed")
	require.Len(t, ForNodes(list, now.Add(2*time.Hour)).Users, 2, "night expired, oncall not")

	held, err := want.Fingerprints()
	require.NoError(t, err)
	require.Equal(t, keys["ed25519"].fingerprint, held[1].Fingerprint)
	rep := Report(held)
	require.Equal(t, 3, rep.Users)
	require.NoError(t, CheckReport(want, rep))

	// The digest does not depend on order, and sees every field.
	require.Equal(t, rep, Report([]Fingerprinted{held[2], held[0], held[1]}))
	changed := append([]Fingerprinted(nil), held...)
	changed[1].Privilege = Standard
	require.ErrorContains(t, CheckReport(want, Report(changed)), "the node holds 3 rackroll users (digest sha256:")
	require.ErrorContains(t, CheckReport(want, Report(held[:2])), "the node holds 2 rackroll users")

	bad := want
	bad.Users = append([]NodeUser{{Name: "eve", Keyset: "x", Key: "ssh-ed25519 AAAA"}}, want.Users...)
	_, err = bad.Fingerprints()
	require.ErrorContains(t, err, "user eve (keyset x): ssh-ed25519 key:")
}

// Wanted gives, from the fingerprints alone (a redacted list), the report
// of a node holding ForNodes: the workflow checks nodes without any key.
func TestWantedFromFingerprints(t *testing.T) {
	keys := testKeys(t)
	night := Spec{Name: "night", Kind: KindBMM, PrivilegeLevel: Standard, Expiration: now.Add(time.Hour),
		Users: []User{{Name: "aaron", SSHPublicKey: keys["ecdsa256"].line}}}
	night, err := Check(night, now)
	require.NoError(t, err)
	oncall, err := Check(bmmSpec(t), now)
	require.NoError(t, err)
	list := Put(Put(Put(nil, oncall, "", now), night, "", now), bmcSpec(), "", now)
	redacted := make([]Keyset, len(list))
	for i, k := range list {
		redacted[i] = k.Redacted()
	}
	for _, at := range []time.Time{now, now.Add(2 * time.Hour), now.Add(49 * time.Hour)} {
		held, err := ForNodes(list, at).Fingerprints()
		require.NoError(t, err)
		require.Equal(t, Report(held), Wanted(redacted, at), "at %s", at)
	}
	require.Equal(t, 0, Wanted(nil, now).Users)
	require.NotEqual(t, Wanted(redacted, now), Wanted(redacted, now.Add(2*time.Hour)), "an expiry changes the set")
}
