// Package temporalconn builds Temporal client options the way the SDK's
// envconfig does (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY,
// TEMPORAL_TLS_*, TEMPORAL_PROFILE and the temporal.toml profiles), with
// command-line flags layered on top. The worker and starter share it so
// both connect the same way.
package temporalconn

import (
	"fmt"

	"github.com/rackroll/rackroll/internal/codec"
	"github.com/spf13/pflag"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/contrib/envconfig"
)

// DefaultAddress is the dev server's frontend (make dev-server).
const DefaultAddress = "127.0.0.1:7233"

// Flags are the global connection flags. Empty values leave the
// environment / profile value alone.
type Flags struct {
	Address       string
	Namespace     string
	Profile       string
	ConfigFile    string
	APIKey        string
	TLS           bool
	TLSCert       string
	TLSKey        string
	TLSCA         string
	TLSServerName string
	TLSNoVerify   bool
	// CodecKeyFile turns the AES-GCM payload codec on (codec.go).
	CodecKeyFile string
}

// Register adds the flags to fs (named like the temporal CLI's).
func (f *Flags) Register(fs *pflag.FlagSet) {
	fs.StringVar(&f.Address, "address", "", "Temporal frontend host:port (env TEMPORAL_ADDRESS; default "+DefaultAddress+")")
	fs.StringVarP(&f.Namespace, "namespace", "n", "", "Temporal namespace (env TEMPORAL_NAMESPACE; default \"default\")")
	fs.StringVar(&f.Profile, "profile", "", "profile in the Temporal client config file (env TEMPORAL_PROFILE)")
	fs.StringVar(&f.ConfigFile, "config-file", "", "Temporal client config file (env TEMPORAL_CONFIG_FILE)")
	fs.StringVar(&f.APIKey, "api-key", "", "API key for Temporal Cloud or a server that requires one (env TEMPORAL_API_KEY)")
	fs.BoolVar(&f.TLS, "tls", false, "connect with TLS (env TEMPORAL_TLS)")
	fs.StringVar(&f.TLSCert, "tls-cert-path", "", "client certificate for mTLS (env TEMPORAL_TLS_CLIENT_CERT_PATH)")
	fs.StringVar(&f.TLSKey, "tls-key-path", "", "client key for mTLS (env TEMPORAL_TLS_CLIENT_KEY_PATH)")
	fs.StringVar(&f.TLSCA, "tls-ca-path", "", "CA that signed the server certificate (env TEMPORAL_TLS_SERVER_CA_CERT_PATH)")
	fs.StringVar(&f.TLSServerName, "tls-server-name", "", "server name to verify (env TEMPORAL_TLS_SERVER_NAME)")
	fs.BoolVar(&f.TLSNoVerify, "tls-disable-host-verification", false, "do not verify the server's host name")
	fs.StringVar(&f.CodecKeyFile, "codec-key-file", "", "encrypt payloads with the AES-256 key in this file (hex or base64; env "+codec.EnvKeyFile+"); worker and starter need the same key")
}

// Profile loads the envconfig profile (file, then environment) and applies
// the flags over it.
func (f *Flags) LoadProfile(env envconfig.EnvLookup) (*envconfig.ClientConfigProfile, error) {
	prof, err := envconfig.LoadClientConfigProfile(envconfig.LoadClientConfigProfileOptions{
		ConfigFilePath:    f.ConfigFile,
		ConfigFileProfile: f.Profile,
		EnvLookup:         env,
	})
	if err != nil {
		return nil, fmt.Errorf("load Temporal client config: %w", err)
	}
	if f.Address != "" {
		prof.Address = f.Address
	}
	if prof.Address == "" {
		prof.Address = DefaultAddress
	}
	if f.Namespace != "" {
		prof.Namespace = f.Namespace
	}
	if f.APIKey != "" {
		prof.APIKey = f.APIKey
	}
	wantTLS := f.TLS || f.TLSCert != "" || f.TLSKey != "" || f.TLSCA != "" || f.TLSServerName != "" || f.TLSNoVerify
	if wantTLS {
		if prof.TLS == nil {
			prof.TLS = &envconfig.ClientConfigTLS{}
		}
		prof.TLS.Disabled = false
		if f.TLSCert != "" {
			prof.TLS.ClientCertPath = f.TLSCert
		}
		if f.TLSKey != "" {
			prof.TLS.ClientKeyPath = f.TLSKey
		}
		if f.TLSCA != "" {
			prof.TLS.ServerCACertPath = f.TLSCA
		}
		if f.TLSServerName != "" {
			prof.TLS.ServerName = f.TLSServerName
		}
		if f.TLSNoVerify {
			prof.TLS.DisableHostVerification = true
		}
	}
	if (f.TLSCert == "") != (f.TLSKey == "") {
		return nil, fmt.Errorf("--tls-cert-path and --tls-key-path go together: give both for mTLS, or neither")
	}
	return &prof, nil
}

// ClientOptions returns SDK client options from the environment and flags.
func (f *Flags) ClientOptions() (client.Options, error) {
	return f.ClientOptionsFrom(nil)
}

// ClientOptionsFrom is ClientOptions with the environment given (nil: the
// process environment), for tests.
func (f *Flags) ClientOptionsFrom(env envconfig.EnvLookup) (client.Options, error) {
	prof, err := f.LoadProfile(env)
	if err != nil {
		return client.Options{}, err
	}
	opts, err := prof.ToClientOptions(envconfig.ToClientOptionsRequest{})
	if err != nil {
		return client.Options{}, fmt.Errorf("Temporal client options: %w", err)
	}
	c, err := f.Codec(env)
	if err != nil {
		return client.Options{}, err
	}
	if c != nil {
		opts.DataConverter = c.DataConverter()
		opts.FailureConverter = c.FailureConverter()
	}
	return opts, nil
}
