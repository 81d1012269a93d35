package temporalconn

import (
	"os"

	"github.com/rackroll/rackroll/internal/codec"
	"go.temporal.io/sdk/contrib/envconfig"
)

// Codec returns the payload codec configured by --codec-key-file or
// RACKROLL_CODEC_KEY_FILE, or nil when neither is set (payloads in clear, the
// SDK default). env nil means the process environment.
func (f *Flags) Codec(env envconfig.EnvLookup) (*codec.Codec, error) {
	path := f.CodecKeyFile
	if path == "" {
		lookup := os.LookupEnv
		if env != nil {
			lookup = env.LookupEnv
		}
		path, _ = lookup(codec.EnvKeyFile)
	}
	if path == "" {
		return nil, nil
	}
	key, err := codec.LoadKeyFile(path)
	if err != nil {
		return nil, err
	}
	return codec.New(key)
}
