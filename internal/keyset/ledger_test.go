package keyset

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Create, update and delete as the ledger's validators and handlers do
// them: the list stays sorted, an update keeps the creation time, the
// rules on names, kinds and members hold, and Redacted drops the keys
// only.
func TestLedgerRules(t *testing.T) {
	var list []Keyset
	s, err := CheckCreate(list, bmmSpec(t), now)
	require.NoError(t, err)
	list = Put(list, s, "alice", now)
	b, err := CheckCreate(list, bmcSpec(), now)
	require.NoError(t, err)
	list = Put(list, b, "bob", now.Add(time.Minute))
	require.Equal(t, []string{"bmc-oncall", "oncall"}, []string{list[0].Name, list[1].Name})

	_, err = CheckCreate(list, bmmSpec(t), now)
	require.ErrorContains(t, err, "name: \"oncall\" — a keyset of that name exists: change it with `starter keyset update`")

	// Another BMM keyset may not take alice; a BMC keyset may have an
	// account of the same name (another kind of access).
	other := bmmSpec(t)
	other.Name, other.Users = "other", other.Users[:1]
	_, err = CheckCreate(list, other, now)
	require.ErrorContains(t, err, "users[0].name: \"alice\" — already a user of bmm keyset oncall")
	ob := bmcSpec()
	ob.Name, ob.Accounts[0].Name = "bmc-other", "Alice"
	_, err = CheckCreate(list, ob, now)
	require.ErrorContains(t, err, "accounts[0].name: \"Alice\" — already an account of bmc keyset bmc-oncall")

	up := bmmSpec(t)
	up.PrivilegeLevel, up.Users = Standard, up.Users[1:]
	up, err = CheckUpdate(list, up, now.Add(time.Hour))
	require.NoError(t, err, "a keyset's own members are no clash")
	list = Put(list, up, "carol", now.Add(time.Hour))
	k, ok := Find(list, "oncall")
	require.True(t, ok)
	require.Equal(t, now, k.Created)
	require.Equal(t, now.Add(time.Hour), k.Updated)
	require.Equal(t, "carol", k.By)
	require.Equal(t, []string{"bob"}, k.Members())
	require.Equal(t, "standard", k.Level())

	missing := bmmSpec(t)
	missing.Name = "nope"
	_, err = CheckUpdate(list, missing, now)
	require.ErrorContains(t, err, "no keyset of that name: create it with `starter keyset create` (the cluster has bmc-oncall, oncall)")
	kind := bmcSpec()
	kind.Name = "oncall"
	_, err = CheckUpdate(list, kind, now)
	require.ErrorContains(t, err, "kind: \"bmc\" — keyset oncall is of kind bmm and keeps it")

	require.ErrorContains(t, CheckDelete(list, "nope"), `name: "nope" — no keyset of that name (the cluster has bmc-oncall, oncall)`)
	require.ErrorContains(t, CheckDelete(nil, ""), "required")
	require.NoError(t, CheckDelete(list, "oncall"))
	after := Remove(list, "oncall")
	require.Len(t, after, 1)
	require.Len(t, list, 2, "Remove leaves its input alone")

	r := list[1].Redacted()
	require.Empty(t, r.Users[0].SSHPublicKey)
	require.Equal(t, list[1].Users[0].Fingerprint, r.Users[0].Fingerprint)
	require.NotEmpty(t, list[1].Users[0].SSHPublicKey, "Redacted leaves the ledger's copy alone")
	require.True(t, r.Expired(r.Expiration))
	require.False(t, r.Expired(r.Expiration.Add(-time.Second)))
}

// The ledger keeps at most MaxKeysets.
func TestLedgerKeepsAtMost(t *testing.T) {
	var list []Keyset
	for i := range MaxKeysets {
		s := bmcSpec()
		s.Name, s.Accounts[0].Name = fmt.Sprintf("k%02d", i), fmt.Sprintf("u%02d", i)
		s, err := CheckCreate(list, s, now)
		require.NoError(t, err)
		list = Put(list, s, "", now)
	}
	s := bmcSpec()
	s.Name, s.Accounts[0].Name = "one-more", "u99"
	_, err := CheckCreate(list, s, now)
	require.ErrorContains(t, err, "the cluster has 32 keysets, the most it keeps")
}
