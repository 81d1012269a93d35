// Package keysettest makes the ed25519 keys that keyset tests give their
// users: made from a seed, so a test names its keys by one byte and gets
// the same key every run, without a key file or ssh-keygen.
package keysettest

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/binary"
)

// Line is the OpenSSH authorized_keys line ("ssh-ed25519 <base64>
// comment") of the key whose seed is b, repeated: Line(1, c) and Line(2, c)
// are two users' keys.
func Line(b byte, comment string) string {
	_, line := New(bytes.Repeat([]byte{b}, ed25519.SeedSize), comment)
	return line
}

// New is the ed25519 key made from seed (ed25519.SeedSize bytes) and its
// public key's authorized_keys line, for a test that looks for the private
// key where it must never be.
func New(seed []byte, comment string) (ed25519.PrivateKey, string) {
	priv := ed25519.NewKeyFromSeed(seed)
	// The wire format (RFC 4253 §6.6, RFC 8709): each field a uint32 length, then its bytes.
	var blob []byte
	for _, f := range [][]byte{[]byte("ssh-ed25519"), priv.Public().(ed25519.PublicKey)} {
		blob = binary.BigEndian.AppendUint32(blob, uint32(len(f)))
		blob = append(blob, f...)
	}
	return priv, "ssh-ed25519 " + base64.StdEncoding.EncodeToString(blob) + " " + comment
}
