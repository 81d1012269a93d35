package keyset

import (
	"encoding/base64"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// testKey is one line of testdata/keys.txt: a public key ssh-keygen made
// and what `ssh-keygen -l -E sha256` printed for it.
type testKey struct {
	line, fingerprint string
	bits              int
}

func testKeys(t *testing.T) map[string]testKey {
	t.Helper()
	b, err := os.ReadFile("testdata/keys.txt")
	require.NoError(t, err)
	out := map[string]testKey{}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		line, fp, ok := strings.Cut(l, "|")
		require.True(t, ok, l)
		f := strings.Fields(fp)
		bits, err := strconv.Atoi(f[1])
		require.NoError(t, err)
		comment := strings.Fields(line)[2] // ed25519@test, rsa1024@test, ...
		out[strings.TrimSuffix(comment, "@test")] = testKey{line: line, fingerprint: f[0], bits: bits}
	}
	return out
}

// Every key ssh-keygen made is read with the fingerprint and size
// ssh-keygen itself printed for it, but the 1024-bit RSA key, too small.
func TestParsePublicKeyAgreesWithSSHKeygen(t *testing.T) {
	keys := testKeys(t)
	require.Len(t, keys, 6)
	for name, k := range keys {
		got, err := ParsePublicKey(k.line)
		if name == "rsa1024" {
			require.EqualError(t, err, "ssh-rsa key: 1024 bits: RSA keys need at least 2048")
			continue
		}
		require.NoError(t, err, name)
		require.Equal(t, k.fingerprint, got.Fingerprint, name)
		require.Equal(t, k.bits, got.Bits, name)
		require.Equal(t, strings.Fields(k.line)[0], got.Type, name)
		// A key without its comment is the same key.
		f := strings.Fields(k.line)
		bare, err := ParsePublicKey(f[0] + " " + f[1])
		require.NoError(t, err)
		require.Equal(t, got, bare)
	}
}

func reblob(t *testing.T, line string, edit func([]byte) []byte) string {
	t.Helper()
	f := strings.Fields(line)
	b, err := base64.StdEncoding.DecodeString(f[1])
	require.NoError(t, err)
	return f[0] + " " + base64.StdEncoding.EncodeToString(edit(b)) + " " + f[2]
}

// Malformed keys are refused with what is wrong, and no refusal quotes
// the value: it may be a private key or a password in the wrong field.
func TestParsePublicKeyRefusals(t *testing.T) {
	keys := testKeys(t)
	ed, rsa, ec := keys["ed25519"].line, keys["rsa"].line, keys["ecdsa256"].line
	edBlob := strings.Fields(ed)[1]
	const private = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----"
	const mistyped = "not-a-key-but-typed-here"
	for _, c := range []struct{ name, line, want string }{
		{"private key", private, "this is a private key"},
		{"password", mistyped, "not an OpenSSH public key: expected"},
		{"password with a space", mistyped + " and more", "the first word is not a key type"},
		{"two lines", ed + "\n" + rsa, "more than one line"},
		{"dsa", "ssh-dss " + edBlob, "DSA keys (ssh-dss) are not accepted"},
		{"certificate", "ssh-ed25519-cert-v01@openssh.com " + edBlob, "a certificate (ssh-ed25519-cert-v01@openssh.com), not a key"},
		{"options", `command="/bin/true" ` + ed, "authorized_keys options are not accepted"},
		{"bad base64", "ssh-ed25519 AAAA!!!!", "ssh-ed25519 key: its base64 does not decode"},
		{"truncated", reblob(t, ed, func(b []byte) []byte { return b[:len(b)-5] }), "ssh-ed25519 key: it ends early"},
		{"trailing bytes", reblob(t, ed, func(b []byte) []byte { return append(b, 0, 0, 0, 0) }), "ssh-ed25519 key: 4 bytes follow the key"},
		{"mislabelled", "ssh-rsa " + edBlob, `ssh-rsa key: the key inside is labelled "ssh-ed25519", not ssh-rsa`},
		{"wrong curve", "ecdsa-sha2-nistp384 " + strings.Fields(ec)[1], `the key inside is labelled "ecdsa-sha2-nistp256", not ecdsa-sha2-nistp384`},
		{"compressed point", reblob(t, ec, func(b []byte) []byte { b[len(b)-65] = 2; return b }), "its point is not an uncompressed nistp256 point (65 bytes)"},
		{"too long", "ssh-rsa " + strings.Repeat("A", MaxKeyLine), "characters: a public key line is at most 16384"},
	} {
		_, err := ParsePublicKey(c.line)
		require.ErrorContains(t, err, c.want, c.name)
		require.NotContains(t, err.Error(), "b3BlbnNza", c.name)
		require.NotContains(t, err.Error(), "typed-here", c.name)
		if c.name != "bad base64" {
			require.NotContains(t, err.Error(), edBlob[:20], c.name)
		}
	}
}

// Short or garbled wire data never panics: every prefix of a real blob
// and a few hostile length fields are refused cleanly.
func TestParsePublicKeyShortBlobs(t *testing.T) {
	for _, k := range testKeys(t) {
		f := strings.Fields(k.line)
		b, err := base64.StdEncoding.DecodeString(f[1])
		require.NoError(t, err)
		for n := 0; n < len(b); n++ {
			_, err := ParsePublicKey(f[0] + " " + base64.StdEncoding.EncodeToString(b[:n]))
			require.Error(t, err, "%s cut at %d", f[0], n)
		}
	}
	for _, blob := range [][]byte{{0xff, 0xff, 0xff, 0xff}, {0, 0, 0, 11, 's', 's', 'h'}, {}} {
		_, err := ParsePublicKey("ssh-ed25519 " + base64.StdEncoding.EncodeToString(blob))
		require.Error(t, err)
	}
}

func FuzzParsePublicKey(f *testing.F) {
	f.Add("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINW12kiolEnIOdh/vwVxUEvb x")
	f.Add("ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAAAgQDQjG2aKB9NVm8cJQ8h9xBn")
	f.Fuzz(func(t *testing.T, line string) {
		k, err := ParsePublicKey(line)
		if err == nil && (k.Type == "" || !strings.HasPrefix(k.Fingerprint, "SHA256:")) {
			t.Fatalf("accepted %q as %+v", line, k)
		}
	})
}
