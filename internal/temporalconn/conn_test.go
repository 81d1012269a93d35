package temporalconn

import (
	"testing"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/require"
)

type env map[string]string

func (e env) Environ() []string {
	var out []string
	for k, v := range e {
		out = append(out, k+"="+v)
	}
	return out
}
func (e env) LookupEnv(k string) (string, bool) { v, ok := e[k]; return v, ok }

func TestEnvironmentThenFlags(t *testing.T) {
	t.Setenv("HOME", t.TempDir()) // no config file
	var f Flags
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	f.Register(fs)
	e := env{"TEMPORAL_ADDRESS": "temporal.example:7233", "TEMPORAL_NAMESPACE": "ops", "TEMPORAL_API_KEY": "k1"}

	p, err := f.LoadProfile(e)
	require.NoError(t, err)
	require.Equal(t, "temporal.example:7233", p.Address)
	require.Equal(t, "ops", p.Namespace)
	require.Equal(t, "k1", p.APIKey)

	require.NoError(t, fs.Parse([]string{"--address", "127.0.0.1:9999", "-n", "lab", "--tls-ca-path", "/ca.pem"}))
	p, err = f.LoadProfile(e)
	require.NoError(t, err)
	require.Equal(t, "127.0.0.1:9999", p.Address)
	require.Equal(t, "lab", p.Namespace)
	require.NotNil(t, p.TLS)
	require.Equal(t, "/ca.pem", p.TLS.ServerCACertPath)
}

func TestDefaultsToDevServer(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	var f Flags
	p, err := f.LoadProfile(env{})
	require.NoError(t, err)
	require.Equal(t, DefaultAddress, p.Address)
}

func TestCertWithoutKeyIsRefused(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	f := Flags{TLSCert: "/c.pem"}
	_, err := f.LoadProfile(env{})
	require.ErrorContains(t, err, "--tls-key-path")
}
