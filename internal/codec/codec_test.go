package codec

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
)

func newKey(t *testing.T) []byte {
	t.Helper()
	k := make([]byte, KeySize)
	_, err := rand.Read(k)
	require.NoError(t, err)
	return k
}

func newCodec(t *testing.T, keys ...[]byte) *Codec {
	t.Helper()
	c, err := New(keys...)
	require.NoError(t, err)
	return c
}

func plainPayload(t *testing.T, v any) *commonpb.Payload {
	t.Helper()
	p, err := converter.GetDefaultDataConverter().ToPayload(v)
	require.NoError(t, err)
	return p
}

func TestRoundTrip(t *testing.T) {
	c := newCodec(t, newKey(t))
	in := []*commonpb.Payload{plainPayload(t, map[string]string{"cluster": "secret-cluster"}), plainPayload(t, nil)}
	enc, err := c.Encode(in)
	require.NoError(t, err)
	require.Len(t, enc, 2)
	for _, p := range enc {
		require.Equal(t, Encoding, string(p.Metadata[converter.MetadataEncoding]))
		require.Equal(t, c.KeyID(), string(p.Metadata[MetadataKeyID]))
		require.False(t, bytes.Contains(p.Data, []byte("secret-cluster")), "ciphertext holds the plaintext")
	}
	dec, err := c.Decode(enc)
	require.NoError(t, err)
	require.Len(t, dec, 2)
	var got map[string]string
	require.NoError(t, converter.GetDefaultDataConverter().FromPayload(dec[0], &got))
	require.Equal(t, "secret-cluster", got["cluster"])
	require.Equal(t, in[1].Metadata, dec[1].Metadata)
}

func TestNoncesDiffer(t *testing.T) {
	c := newCodec(t, newKey(t))
	p := plainPayload(t, "same")
	a, err := c.Encode([]*commonpb.Payload{p})
	require.NoError(t, err)
	b, err := c.Encode([]*commonpb.Payload{p})
	require.NoError(t, err)
	require.NotEqual(t, a[0].Data, b[0].Data, "a fresh nonce per payload")
}

func TestPlainPayloadsPassThrough(t *testing.T) {
	c := newCodec(t, newKey(t))
	p := plainPayload(t, "written before the codec was on")
	dec, err := c.Decode([]*commonpb.Payload{p})
	require.NoError(t, err)
	require.Same(t, p, dec[0])
}

func TestTamperDetected(t *testing.T) {
	c := newCodec(t, newKey(t))
	enc, err := c.Encode([]*commonpb.Payload{plainPayload(t, "x")})
	require.NoError(t, err)

	flipped := &commonpb.Payload{Metadata: enc[0].Metadata, Data: bytes.Clone(enc[0].Data)}
	flipped.Data[len(flipped.Data)-1] ^= 1
	_, err = c.Decode([]*commonpb.Payload{flipped})
	require.ErrorContains(t, err, "failed authentication")

	short := &commonpb.Payload{Metadata: enc[0].Metadata, Data: enc[0].Data[:5]}
	_, err = c.Decode([]*commonpb.Payload{short})
	require.ErrorContains(t, err, "truncated")
}

func TestWrongKey(t *testing.T) {
	a, b := newCodec(t, newKey(t)), newCodec(t, newKey(t))
	enc, err := a.Encode([]*commonpb.Payload{plainPayload(t, "x")})
	require.NoError(t, err)
	_, err = b.Decode(enc)
	require.ErrorContains(t, err, a.KeyID())
	require.ErrorContains(t, err, b.KeyID())
	require.ErrorContains(t, err, "same --codec-key-file")

	// Relabelling the payload with the reader's key id does not help: the
	// id is authenticated data.
	enc[0].Metadata[MetadataKeyID] = []byte(b.KeyID())
	_, err = b.Decode(enc)
	require.ErrorContains(t, err, "failed authentication")
}

func TestOldKeyStillDecrypts(t *testing.T) {
	old, cur := newKey(t), newKey(t)
	enc, err := newCodec(t, old).Encode([]*commonpb.Payload{plainPayload(t, "x")})
	require.NoError(t, err)
	rotated := newCodec(t, cur, old)
	require.Equal(t, KeyID(cur), rotated.KeyID())
	_, err = rotated.Decode(enc)
	require.NoError(t, err)
}

func TestParseKey(t *testing.T) {
	k := newKey(t)
	for name, text := range map[string]string{
		"hex":        hex.EncodeToString(k) + "\n",
		"base64":     base64.StdEncoding.EncodeToString(k),
		"base64 raw": base64.RawURLEncoding.EncodeToString(k),
	} {
		got, err := ParseKey([]byte(text))
		require.NoError(t, err, name)
		require.Equal(t, k, got, name)
	}
	for _, bad := range []string{"", "abcd", hex.EncodeToString(k[:16]), base64.StdEncoding.EncodeToString(append(k, 1))} {
		_, err := ParseKey([]byte(bad))
		require.ErrorContains(t, err, "32-byte key", bad)
	}
	_, err := New(k[:16])
	require.ErrorContains(t, err, "want 32")
}

func TestLoadKeyFile(t *testing.T) {
	k := newKey(t)
	path := filepath.Join(t.TempDir(), "key")
	require.NoError(t, os.WriteFile(path, []byte(hex.EncodeToString(k)), 0o600))
	got, err := LoadKeyFile(path)
	require.NoError(t, err)
	require.Equal(t, k, got)
	require.Len(t, KeyID(k), 8)

	_, err = LoadKeyFile(filepath.Join(t.TempDir(), "missing"))
	require.ErrorContains(t, err, "payload codec key")
}

// The converter the worker and starter use: values survive, and what it
// hands the server is encrypted.
func TestDataConverter(t *testing.T) {
	dc := newCodec(t, newKey(t)).DataConverter()
	p, err := dc.ToPayload("rack1-c1")
	require.NoError(t, err)
	require.Equal(t, Encoding, string(p.Metadata[converter.MetadataEncoding]))
	var s string
	require.NoError(t, dc.FromPayload(p, &s))
	require.Equal(t, "rack1-c1", s)
}

// Error texts can name BMC addresses and serials: with the codec on they
// travel encrypted too, and come back whole on the other side.
func TestFailureConverterEncryptsMessages(t *testing.T) {
	fc := newCodec(t, newKey(t)).FailureConverter()
	f := fc.ErrorToFailure(temporal.NewApplicationError("BMC https://10.0.1.21 refused", "BMCError"))
	require.NotContains(t, f.GetMessage(), "10.0.1.21")
	require.Equal(t, Encoding, string(f.GetEncodedAttributes().GetMetadata()[converter.MetadataEncoding]))
	require.False(t, bytes.Contains(f.GetEncodedAttributes().GetData(), []byte("10.0.1.21")))
	require.ErrorContains(t, fc.FailureToError(f), "BMC https://10.0.1.21 refused")
}
