package keyset

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A keyset file reads as YAML, an unquoted timestamp included.
func TestParseFile(t *testing.T) {
	keys := testKeys(t)
	doc := `name: oncall
kind: bmm
privilegeLevel: superuser
expiration: 2026-12-31T00:00:00Z
users:
  - name: alice
    sshPublicKey: ` + keys["ed25519"].line + `
`
	s, err := Parse([]byte(doc), now)
	require.NoError(t, err)
	require.Equal(t, time.Date(2026, 12, 31, 0, 0, 0, 0, time.UTC), s.Expiration.UTC())
	require.Equal(t, keys["ed25519"].fingerprint, s.Users[0].Fingerprint)
}

// Shape problems are a keyset's: every one named, an inline password
// pointed at passwordSecretRef and never quoted, a date that is not a
// time explained.
func TestParseShapeProblems(t *testing.T) {
	doc := `name: bmc
kind: bmc
role: Operator
expiration: 2026-12-31
color: blue
accounts:
  - name: alice
    password: Hunter2-Hunter2
    username: alice
    passwordSecretRef: {namespace: rackroll, name: bmc-alice, key: password}
`
	_, err := Parse([]byte(doc), now)
	p := problems(t, err)
	require.Contains(t, p["expiration"].Message, "expected an RFC 3339 time such as 2027-01-31T00:00:00Z")
	require.Contains(t, p["color"].Message, "unknown field: allowed fields are name, kind, description")
	require.Contains(t, p["accounts[0].password"].Message, "passwordSecretRef {namespace, name, key}")
	require.Equal(t, "(redacted)", p["accounts[0].password"].Value)
	require.Contains(t, p["accounts[0].username"].Message, "an account's user name is its name field")
	require.Len(t, p, 4)
	require.NotContains(t, err.Error(), "Hunter2")

	_, err = Parse([]byte("name: [unclosed"), now)
	require.Contains(t, problems(t, err)["keyset"].Message, "not valid YAML")
	_, err = Parse([]byte(""), now)
	require.Contains(t, problems(t, err)["keyset"].Message, "see docs/keysets.md for a complete keyset")
}
