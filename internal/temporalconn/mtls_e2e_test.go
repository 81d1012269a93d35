package temporalconn

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/devserver"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
)

// mtlsProxy terminates mTLS in front of a plaintext Temporal frontend, the
// way a TLS-enabled server or an ingress would: `temporal server start-dev`
// has no TLS flags, and this exercises the same client side.
func mtlsProxy(t *testing.T, p *pki, backend string) string {
	t.Helper()
	roots := x509.NewCertPool()
	roots.AddCert(p.CA)
	l, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{
		Certificates: []tls.Certificate{p.ServerCert},
		ClientCAs:    roots,
		ClientAuth:   tls.RequireAndVerifyClientCert,
		NextProtos:   []string{"h2"}, // gRPC insists on ALPN h2
	})
	require.NoError(t, err)
	var wg sync.WaitGroup
	t.Cleanup(func() { l.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				b, err := net.Dial("tcp", backend)
				if err != nil {
					return
				}
				defer b.Close()
				done := make(chan struct{}, 2)
				go func() { io.Copy(b, c); done <- struct{}{} }()
				go func() { io.Copy(c, b); done <- struct{}{} }()
				<-done // either side closing ends the pair
			}()
		}
	}()
	return l.Addr().String()
}

// A real mTLS round trip with the flags an operator would pass, then the
// mistakes: the wrong CA and no client certificate both fail to connect
// with the TLS reason in the error.
func TestE2EMTLSRoundTrip(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the dev server")
	}
	t.Setenv("HOME", t.TempDir())
	srv, err := devserver.Start(context.Background(), devserver.Options{})
	require.NoError(t, err)
	t.Cleanup(srv.Stop)
	p := newPKI(t)
	addr := mtlsProxy(t, p, srv.Address)

	dial := func(f Flags) (client.Client, error) {
		f.Address = addr
		opts, err := f.ClientOptionsFrom(env{})
		require.NoError(t, err)
		opts.Logger = quietLogger{}
		opts.ConnectionOptions.GetSystemInfoTimeout = 20 * time.Second
		return client.Dial(opts)
	}

	c, err := dial(Flags{TLSCert: p.ClientCertPath, TLSKey: p.ClientKeyPath, TLSCA: p.CAPath, TLSServerName: p.ServerName})
	require.NoError(t, err)
	_, err = c.CheckHealth(context.Background(), &client.CheckHealthRequest{})
	require.NoError(t, err)
	c.Close()

	_, err = dial(Flags{TLSCert: p.ClientCertPath, TLSKey: p.ClientKeyPath, TLSCA: p.OtherCAPath, TLSServerName: p.ServerName})
	require.ErrorContains(t, err, "certificate signed by unknown authority")

	_, err = dial(Flags{TLSCA: p.CAPath, TLSServerName: p.ServerName})
	require.ErrorContains(t, err, "certificate required")
}

type quietLogger struct{}

func (quietLogger) Debug(string, ...any) {}
func (quietLogger) Info(string, ...any)  {}
func (quietLogger) Warn(string, ...any)  {}
func (quietLogger) Error(string, ...any) {}
