// Package codec is rackroll's optional payload codec: AES-256-GCM over every
// payload the Temporal SDK writes, so workflow inputs, results, signals and
// activity arguments (inventories, BMC addresses, kubeconfig references) are
// stored encrypted in the Temporal server. Only processes that hold the key
// (worker, starter, the codec server the UI calls) can read them.
package codec

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"google.golang.org/protobuf/proto"
)

const (
	// Encoding marks an encrypted payload (metadata "encoding").
	Encoding = "binary/encrypted"
	// MetadataKeyID names the key that encrypted a payload, so a process
	// with the wrong key says so instead of failing authentication blindly.
	MetadataKeyID = "encryption-key-id"
	// KeySize is AES-256's key length.
	KeySize = 32
)

// Codec encrypts with its first key and decrypts with any of its keys (so a
// rotated-out key can still read old histories).
type Codec struct {
	primary string
	aeads   map[string]cipher.AEAD
	ids     []string
}

var _ converter.PayloadCodec = (*Codec)(nil)

// New returns a codec that encrypts with keys[0] and decrypts with any key.
func New(keys ...[]byte) (*Codec, error) {
	if len(keys) == 0 {
		return nil, fmt.Errorf("payload codec: no key")
	}
	c := &Codec{aeads: map[string]cipher.AEAD{}}
	for i, k := range keys {
		if len(k) != KeySize {
			return nil, fmt.Errorf("payload codec: key %d is %d bytes, want %d (AES-256)", i+1, len(k), KeySize)
		}
		block, err := aes.NewCipher(k)
		if err != nil {
			return nil, err
		}
		aead, err := cipher.NewGCM(block)
		if err != nil {
			return nil, err
		}
		id := KeyID(k)
		if _, dup := c.aeads[id]; !dup {
			c.ids = append(c.ids, id)
		}
		c.aeads[id] = aead
	}
	c.primary = KeyID(keys[0])
	return c, nil
}

// KeyID is the first 8 hex digits of the key's SHA-256: enough to tell keys
// apart in errors and metadata, useless for recovering the key.
func KeyID(key []byte) string {
	sum := sha256.Sum256(key)
	return hex.EncodeToString(sum[:4])
}

// KeyID returns the id of the key new payloads are encrypted with.
func (c *Codec) KeyID() string { return c.primary }

// Encode encrypts each payload whole (data and metadata, marshalled), with a
// fresh random nonce, and the key id as additional data so swapping the id
// in the metadata is detected too.
func (c *Codec) Encode(payloads []*commonpb.Payload) ([]*commonpb.Payload, error) {
	aead := c.aeads[c.primary]
	out := make([]*commonpb.Payload, len(payloads))
	for i, p := range payloads {
		plain, err := proto.Marshal(p)
		if err != nil {
			return nil, fmt.Errorf("payload codec: marshal payload: %w", err)
		}
		// Random 96-bit nonces are safe for far more payloads than one key
		// will ever see here (the GCM bound is about 2^32 per key).
		nonce := make([]byte, aead.NonceSize(), aead.NonceSize()+len(plain)+aead.Overhead())
		if _, err := rand.Read(nonce); err != nil {
			return nil, fmt.Errorf("payload codec: nonce: %w", err)
		}
		out[i] = &commonpb.Payload{
			Metadata: map[string][]byte{
				converter.MetadataEncoding: []byte(Encoding),
				MetadataKeyID:              []byte(c.primary),
			},
			Data: aead.Seal(nonce, nonce, plain, []byte(c.primary)),
		}
	}
	return out, nil
}

// Decode decrypts encrypted payloads and passes others through unchanged:
// histories written before the codec was switched on stay readable.
func (c *Codec) Decode(payloads []*commonpb.Payload) ([]*commonpb.Payload, error) {
	out := make([]*commonpb.Payload, len(payloads))
	for i, p := range payloads {
		if string(p.GetMetadata()[converter.MetadataEncoding]) != Encoding {
			out[i] = p
			continue
		}
		id := string(p.GetMetadata()[MetadataKeyID])
		aead, ok := c.aeads[id]
		if !ok {
			return nil, fmt.Errorf("payload codec: payload was encrypted with key id %q, this process has key id(s) %s: "+
				"the worker, the starter and the codec server must use the same --codec-key-file (RACKROLL_CODEC_KEY_FILE)",
				id, strings.Join(c.ids, ", "))
		}
		ns := aead.NonceSize()
		if len(p.Data) < ns+aead.Overhead() {
			return nil, fmt.Errorf("payload codec: encrypted payload (key id %s) is truncated", id)
		}
		plain, err := aead.Open(nil, p.Data[:ns], p.Data[ns:], []byte(id))
		if err != nil {
			return nil, fmt.Errorf("payload codec: payload (key id %s) failed authentication: it was altered, "+
				"or encrypted with a different key of the same id: %w", id, err)
		}
		dec := &commonpb.Payload{}
		if err := proto.Unmarshal(plain, dec); err != nil {
			return nil, fmt.Errorf("payload codec: decrypted payload (key id %s) is not a payload: %w", id, err)
		}
		out[i] = dec
	}
	return out, nil
}

// DataConverter wraps the SDK's default converter with the codec. Worker and
// starter must both use it (or both not): each side only reads what the
// other wrote when they share the key.
func (c *Codec) DataConverter() converter.DataConverter {
	return converter.NewCodecDataConverter(converter.GetDefaultDataConverter(), c)
}

// FailureConverter also encrypts failure messages and stack traces: an
// error text ("BMC https://10.0.1.21: 401 …") says as much as a payload.
// Both sides need it, like DataConverter.
func (c *Codec) FailureConverter() converter.FailureConverter {
	return temporal.NewDefaultFailureConverter(temporal.DefaultFailureConverterOptions{
		DataConverter: c.DataConverter(), EncodeCommonAttributes: true})
}

// KeyIDs lists the ids of every key the codec decrypts with, primary first.
func (c *Codec) KeyIDs() []string { return slices.Clone(c.ids) }
