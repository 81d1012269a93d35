package keyset

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"
	"strings"
)

// PublicKey is what an authorized_keys line says, checked: its type, its
// SHA256 fingerprint as ssh-keygen -l prints it, and its size in bits.
type PublicKey struct {
	Type        string
	Fingerprint string
	Bits        int
}

// keyTypes are the public key types accepted, with the size of each in
// bits for the ones whose size is fixed. DSA (ssh-dss) is refused: OpenSSH
// no longer accepts it. Certificates are refused: a keyset names keys.
var keyTypes = map[string]int{
	"ssh-ed25519":                        256,
	"ssh-rsa":                            0,
	"ecdsa-sha2-nistp256":                256,
	"ecdsa-sha2-nistp384":                384,
	"ecdsa-sha2-nistp521":                521,
	"sk-ssh-ed25519@openssh.com":         256,
	"sk-ecdsa-sha2-nistp256@openssh.com": 256,
}

// AllowedKeyTypes is the list a refusal names.
const AllowedKeyTypes = "ssh-ed25519, ecdsa-sha2-nistp256/384/521, ssh-rsa (2048 bits or more), sk-ssh-ed25519@openssh.com, sk-ecdsa-sha2-nistp256@openssh.com"

// MinRSABits is the smallest RSA key accepted.
const MinRSABits = 2048

// ParsePublicKey checks one authorized_keys line without options and
// reads its type and fingerprint. The key blob is decoded as RFC 4253 and
// RFC 5656 lay it out (the type inside the blob must match the one in
// front of it, every field must be whole, nothing may follow), so a
// truncated paste or a key of one type labelled as another is refused.
// Its errors never quote the line: it may be a private key or a password
// pasted into the wrong field.
func ParsePublicKey(line string) (PublicKey, error) {
	if strings.Contains(line, "PRIVATE KEY") {
		return PublicKey{}, errors.New("this is a private key: give the public key (the .pub file, one line starting with its type); a private key never leaves its owner")
	}
	if strings.ContainsAny(line, "\r\n") {
		return PublicKey{}, errors.New("more than one line: give one public key, one line")
	}
	if len(line) > MaxKeyLine {
		return PublicKey{}, fmt.Errorf("%d characters: a public key line is at most %d", len(line), MaxKeyLine)
	}
	fields := strings.Fields(line)
	if len(fields) < 2 {
		return PublicKey{}, fmt.Errorf("not an OpenSSH public key: expected \"<type> <base64 key> [comment]\" with type one of %s", AllowedKeyTypes)
	}
	typ := fields[0]
	if _, ok := keyTypes[typ]; !ok {
		return PublicKey{}, unknownType(typ)
	}
	blob, err := base64.StdEncoding.DecodeString(fields[1])
	if err != nil {
		return PublicKey{}, fmt.Errorf("%s key: its base64 does not decode (truncated or mangled in the paste?)", typ)
	}
	bits, err := readBlob(typ, blob)
	if err != nil {
		return PublicKey{}, fmt.Errorf("%s key: %w", typ, err)
	}
	sum := sha256.Sum256(blob)
	return PublicKey{Type: typ, Fingerprint: "SHA256:" + base64.RawStdEncoding.EncodeToString(sum[:]), Bits: bits}, nil
}

// unknownType names a refused type without quoting what may not be a type
// at all (a password pasted into the key field).
func unknownType(typ string) error {
	switch {
	case typ == "ssh-dss":
		return fmt.Errorf("DSA keys (ssh-dss) are not accepted (OpenSSH no longer takes them): allowed %s", AllowedKeyTypes)
	case strings.HasSuffix(typ, "-cert-v01@openssh.com"):
		return fmt.Errorf("a certificate (%s), not a key: give the public key itself; allowed %s", typ, AllowedKeyTypes)
	case strings.Contains(typ, "="):
		return fmt.Errorf("authorized_keys options are not accepted: give \"<type> <base64 key> [comment]\" only; allowed types %s", AllowedKeyTypes)
	}
	return fmt.Errorf("not an OpenSSH public key: the first word is not a key type; allowed %s", AllowedKeyTypes)
}

// readBlob reads the wire-format key and returns its size in bits.
func readBlob(typ string, blob []byte) (int, error) {
	r := &wire{b: blob}
	if inner := string(r.str()); r.err == nil && inner != typ {
		return 0, fmt.Errorf("the key inside is labelled %q, not %s", printable(inner), typ)
	}
	bits := keyTypes[typ]
	switch typ {
	case "ssh-ed25519", "sk-ssh-ed25519@openssh.com":
		if k := r.str(); r.err == nil && len(k) != 32 {
			return 0, fmt.Errorf("an Ed25519 key is 32 bytes, this one %d", len(k))
		}
	case "ssh-rsa":
		e, n := r.mpint(), r.mpint()
		if r.err == nil {
			if e.Sign() <= 0 || n.Sign() <= 0 {
				return 0, errors.New("its exponent or modulus is not positive")
			}
			if bits = n.BitLen(); bits < MinRSABits {
				return 0, fmt.Errorf("%d bits: RSA keys need at least %d", bits, MinRSABits)
			}
		}
	default: // ECDSA, plain or security-key
		curve, point := string(r.str()), r.str()
		want := "nistp" + fmt.Sprint(bits)
		switch size := (bits + 7) / 8; {
		case r.err != nil:
		case curve != want:
			return 0, fmt.Errorf("its curve is %q, the type says %s", printable(curve), want)
		case len(point) != 1+2*size || point[0] != 4:
			return 0, fmt.Errorf("its point is not an uncompressed %s point (%d bytes)", want, 1+2*size)
		}
	}
	if strings.HasPrefix(typ, "sk-") {
		r.str() // the security key's application, "ssh:" by default
	}
	if r.err != nil {
		return 0, r.err
	}
	if len(r.b) > 0 {
		return 0, fmt.Errorf("%d bytes follow the key", len(r.b))
	}
	return bits, nil
}

// wire reads RFC 4251 strings and mpints; the first short read sticks.
type wire struct {
	b   []byte
	err error
}

func (w *wire) str() []byte {
	if w.err != nil {
		return nil
	}
	if len(w.b) < 4 {
		w.err = errors.New("it ends early (truncated in the paste?)")
		return nil
	}
	n := binary.BigEndian.Uint32(w.b)
	if uint64(n) > uint64(len(w.b)-4) {
		w.err = errors.New("it ends early (truncated in the paste?)")
		return nil
	}
	s := w.b[4 : 4+n]
	w.b = w.b[4+n:]
	return s
}

func (w *wire) mpint() *big.Int {
	s := w.str()
	if w.err != nil {
		return nil
	}
	if len(s) > 0 && s[0]&0x80 != 0 {
		return big.NewInt(-1) // negative: refused by the caller
	}
	return new(big.Int).SetBytes(s)
}

// printable keeps a label from the blob readable and short in a message.
func printable(s string) string {
	if len(s) > 40 {
		s = s[:40]
	}
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7e {
			return '?'
		}
		return r
	}, s)
}
