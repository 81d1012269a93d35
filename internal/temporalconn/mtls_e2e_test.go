package temporalconn

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/devserver"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
)

// mtlsProxy terminates mTLS in front of a plaintext Temporal frontend, the
// way a TLS-enabled server or an ingress would: `temporal server start-dev`
// has no TLS flags, and this exercises the same client side.
func mtlsProxy(t *testing.T, p *pki, backend string) *proxy {
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
	px := &proxy{addr: l.Addr().String()}
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
				// Handshake here so the server's reason for refusing a
				// client is on record: in TLS 1.3 the client may see only
				// a broken pipe, racing the server's alert.
				if err := c.(*tls.Conn).Handshake(); err != nil {
					px.refused(err)
					return
				}
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
	return px
}

// proxy is the mTLS front door and what it refused.
type proxy struct {
	addr string
	mu   sync.Mutex
	errs []string
}

func (p *proxy) refused(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.errs = append(p.errs, err.Error())
}

func (p *proxy) refusals() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.errs...)
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
	px := mtlsProxy(t, p, srv.Address)

	dial := func(f Flags) (client.Client, error) {
		f.Address = px.addr
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

	// Without a client certificate the server refuses the handshake. The
	// client usually reads the server's "certificate required" alert, but
	// in TLS 1.3 it may write first and see the closed connection instead,
	// so the reason is checked on the server side — where it is recorded by
	// the proxy's own goroutine, possibly after the client has given up.
	_, err = dial(Flags{TLSCA: p.CAPath, TLSServerName: p.ServerName})
	require.Error(t, err)
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		assert.Contains(c, strings.Join(px.refusals(), "\n"), "didn't provide a certificate")
	}, 10*time.Second, 20*time.Millisecond)
}

type quietLogger struct{}

func (quietLogger) Debug(string, ...any) {}
func (quietLogger) Info(string, ...any)  {}
func (quietLogger) Warn(string, ...any)  {}
func (quietLogger) Error(string, ...any) {}
