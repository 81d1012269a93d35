package codec

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"os"
)

// EnvKeyFile names the key file when --codec-key-file is not given. The key
// itself never goes into the environment or a flag: both leak into process
// listings and crash reports.
const EnvKeyFile = "RACKROLL_CODEC_KEY_FILE"

// ParseKey reads a 32-byte key written as hex (64 digits) or base64
// (standard or URL alphabet, padded or not); surrounding whitespace is
// ignored so `openssl rand -hex 32 > key` works as is.
func ParseKey(text []byte) ([]byte, error) {
	s := string(bytes.TrimSpace(text))
	if len(s) == 2*KeySize {
		if k, err := hex.DecodeString(s); err == nil {
			return k, nil
		}
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if k, err := enc.DecodeString(s); err == nil && len(k) == KeySize {
			return k, nil
		}
	}
	return nil, fmt.Errorf("want a %d-byte key as 64 hex digits or base64 (e.g. `openssl rand -hex 32`)", KeySize)
}

// LoadKeyFile reads and parses a key file.
func LoadKeyFile(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("payload codec key: %w", err)
	}
	k, err := ParseKey(b)
	if err != nil {
		return nil, fmt.Errorf("payload codec key %s: %w", path, err)
	}
	return k, nil
}
