package temporalconn

import (
	"crypto/x509"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
)

// requireMTLS checks the client would present the client certificate,
// trust exactly the test CA, and check the server's name.
func requireMTLS(t *testing.T, p *pki, opts client.Options) {
	t.Helper()
	tc := opts.ConnectionOptions.TLS
	require.NotNil(t, tc, "TLS on")
	require.False(t, opts.ConnectionOptions.TLSDisabled)
	require.False(t, tc.InsecureSkipVerify, "server verification stays on")
	require.Equal(t, p.ServerName, tc.ServerName)
	require.Len(t, tc.Certificates, 1)
	require.Equal(t, p.ClientCert.Raw, tc.Certificates[0].Certificate[0], "client certificate presented")
	require.NotNil(t, tc.RootCAs)
	_, err := p.ServerCert.Leaf.Verify(x509.VerifyOptions{Roots: tc.RootCAs, DNSName: p.ServerName})
	require.NoError(t, err, "the server certificate verifies against the configured CA")
	_, err = p.ServerCert.Leaf.Verify(x509.VerifyOptions{DNSName: p.ServerName})
	require.Error(t, err, "and not against the system roots: the test CA is private")
}

func TestMTLSFromFlags(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	p := newPKI(t)
	var f Flags
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	f.Register(fs)
	require.NoError(t, fs.Parse([]string{"--address", "temporal.rackroll.test:7233",
		"--tls-cert-path", p.ClientCertPath, "--tls-key-path", p.ClientKeyPath,
		"--tls-ca-path", p.CAPath, "--tls-server-name", p.ServerName}))
	opts, err := f.ClientOptionsFrom(env{})
	require.NoError(t, err)
	require.Equal(t, "temporal.rackroll.test:7233", opts.HostPort)
	requireMTLS(t, p, opts)
	require.Nil(t, opts.Credentials, "no API key given")
	require.Nil(t, opts.DataConverter, "no codec key given: the SDK default")
}

func TestMTLSFromEnvironment(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	p := newPKI(t)
	var f Flags
	opts, err := f.ClientOptionsFrom(env{
		"TEMPORAL_ADDRESS":                 "temporal.rackroll.test:7233",
		"TEMPORAL_NAMESPACE":               "rackroll",
		"TEMPORAL_TLS_CLIENT_CERT_PATH":    p.ClientCertPath,
		"TEMPORAL_TLS_CLIENT_KEY_PATH":     p.ClientKeyPath,
		"TEMPORAL_TLS_SERVER_CA_CERT_PATH": p.CAPath,
		"TEMPORAL_TLS_SERVER_NAME":         p.ServerName,
	})
	require.NoError(t, err)
	require.Equal(t, "rackroll", opts.Namespace)
	requireMTLS(t, p, opts)
}

// A flag overrides the environment's CA, so an operator can point one
// command at another CA without editing the environment.
func TestFlagCAOverridesEnvironment(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	p := newPKI(t)
	f := Flags{TLSCA: p.CAPath}
	opts, err := f.ClientOptionsFrom(env{"TEMPORAL_TLS_SERVER_CA_CERT_PATH": p.OtherCAPath})
	require.NoError(t, err)
	_, err = p.ServerCert.Leaf.Verify(x509.VerifyOptions{Roots: opts.ConnectionOptions.TLS.RootCAs, DNSName: p.ServerName})
	require.NoError(t, err)
}

func TestAPIKey(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	for name, tc := range map[string]struct {
		flags Flags
		env   env
	}{
		"flag":        {flags: Flags{APIKey: "k-flag"}, env: env{}},
		"environment": {env: env{"TEMPORAL_API_KEY": "k-env"}},
	} {
		t.Run(name, func(t *testing.T) {
			opts, err := tc.flags.ClientOptionsFrom(tc.env)
			require.NoError(t, err)
			require.NotNil(t, opts.Credentials, "API key credentials")
			// An API key without TLS would send the key in clear: the SDK's
			// envconfig turns TLS on with the system roots.
			require.NotNil(t, opts.ConnectionOptions.TLS)
			require.Nil(t, opts.ConnectionOptions.TLS.RootCAs)
			require.False(t, opts.ConnectionOptions.TLS.InsecureSkipVerify)
		})
	}
}

func TestBadTLSFilesAreClearErrors(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	p := newPKI(t)
	f := Flags{TLSCA: filepath.Join(t.TempDir(), "missing.pem")}
	_, err := f.ClientOptionsFrom(env{})
	require.ErrorContains(t, err, "server CA")

	notPEM := filepath.Join(t.TempDir(), "ca.pem")
	require.NoError(t, os.WriteFile(notPEM, []byte("not a certificate"), 0o600))
	f = Flags{TLSCA: notPEM}
	_, err = f.ClientOptionsFrom(env{})
	require.ErrorContains(t, err, "CA")

	f = Flags{TLSCert: p.ClientCertPath, TLSKey: p.CAPath} // a certificate is not a key
	_, err = f.ClientOptionsFrom(env{})
	require.ErrorContains(t, err, "client cert/key")
}

func TestCodecFromFlagOrEnvironment(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	key := make([]byte, 32)
	key[0] = 7
	path := filepath.Join(t.TempDir(), "codec.key")
	require.NoError(t, os.WriteFile(path, []byte(hex.EncodeToString(key)), 0o600))

	f := Flags{CodecKeyFile: path}
	opts, err := f.ClientOptionsFrom(env{})
	require.NoError(t, err)
	require.NotNil(t, opts.DataConverter)
	p, err := opts.DataConverter.ToPayload("rack1")
	require.NoError(t, err)
	require.Equal(t, "binary/encrypted", string(p.Metadata["encoding"]))

	var g Flags
	c, err := g.Codec(env{"RACKROLL_CODEC_KEY_FILE": path})
	require.NoError(t, err)
	require.NotNil(t, c)
	c2, err := f.Codec(env{})
	require.NoError(t, err)
	require.Equal(t, c2.KeyID(), c.KeyID(), "same key, same id: worker and starter agree")

	bad := filepath.Join(t.TempDir(), "bad.key")
	require.NoError(t, os.WriteFile(bad, []byte("short"), 0o600))
	_, err = (&Flags{CodecKeyFile: bad}).ClientOptionsFrom(env{})
	require.ErrorContains(t, err, "bad.key")
}
