package redfish

import (
	"crypto/tls"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/rackroll/rackroll/internal/lab/faults"
)

// hangLimit bounds a faults.BMCTimeout hang for clients that never give up.
const hangLimit = 2 * time.Minute

// Handler returns the BMC's Redfish service.
func (b *BMC) Handler() http.Handler { return http.HandlerFunc(b.serveHTTP) }

// Serve listens on addr (127.0.0.1:0 when empty) and returns the base URL,
// e.g. "http://127.0.0.1:41234". Close shuts the server down.
func (b *BMC) Serve(addr string) (string, error) { return b.serve(addr, nil) }

// ServeTLS is Serve over HTTPS with cert (e.g. one a lab CA signed for
// 127.0.0.1); it returns "https://127.0.0.1:<port>".
func (b *BMC) ServeTLS(addr string, cert tls.Certificate) (string, error) {
	return b.serve(addr, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
}

func (b *BMC) serve(addr string, tlsConfig *tls.Config) (string, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", err
	}
	srv := &http.Server{Handler: b.Handler(), ReadHeaderTimeout: 30 * time.Second,
		// A client that fails verification closes the handshake; that is the
		// client's business, not worth a log line per attempt.
		ErrorLog: log.New(io.Discard, "", 0)}
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		ln.Close()
		return "", errors.New("redfish: BMC " + b.cfg.BMM + " is closed")
	}
	b.servers = append(b.servers, srv)
	b.mu.Unlock()
	scheme := "http://"
	if tlsConfig != nil {
		ln = tls.NewListener(ln, tlsConfig)
		scheme = "https://"
	}
	go srv.Serve(ln)
	return scheme + ln.Addr().String(), nil
}

// serveHTTP applies transport faults, then authentication, then routes.
// Injected faults strike before the request is processed, so a failed
// request has no effect.
func (b *BMC) serveHTTP(w http.ResponseWriter, r *http.Request) {
	b.mu.Lock()
	closed := b.closed
	unreachable := b.faultActiveLocked(faults.BMCUnreachable) || b.awayLocked()
	hang := !unreachable && b.faultHitLocked(faults.BMCTimeout)
	fail := !unreachable && !hang && b.faultHitLocked(faults.BMC5xx)
	coin := b.rng.IntN(2)
	b.mu.Unlock()

	switch {
	case closed:
		writeError(w, &apiError{http.StatusServiceUnavailable, "ServiceShuttingDown", "The BMC is shutting down."})
		return
	case unreachable:
		// Drop the connection without a byte of answer.
		panic(http.ErrAbortHandler)
	case hang:
		b.hang(r)
		panic(http.ErrAbortHandler)
	case fail:
		status := http.StatusInternalServerError
		if coin == 1 {
			status = http.StatusServiceUnavailable
			w.Header().Set("Retry-After", "1")
		}
		writeError(w, &apiError{status, "InternalError",
			"The request failed due to an internal service error (injected " + string(faults.BMC5xx) + " fault). The service is still operational."})
		return
	}

	p := cleanPath(r.URL.Path)
	if !public(r.Method, p) {
		if e := b.authorize(r); e != nil {
			if b.prof.BasicAuth {
				w.Header().Set("WWW-Authenticate", `Basic realm="RedfishService"`)
			}
			writeError(w, e)
			return
		}
	}
	b.route(w, r, p)
}

// hang holds a request until the client gives up, the BMC closes, or
// hangLimit passes.
func (b *BMC) hang(r *http.Request) {
	b.mu.Lock()
	b.hanging++
	b.mu.Unlock()
	defer func() {
		b.mu.Lock()
		b.hanging--
		b.mu.Unlock()
	}()
	t := time.NewTimer(hangLimit)
	defer t.Stop()
	select {
	case <-r.Context().Done():
	case <-b.done:
	case <-t.C:
	}
}

// cleanPath drops a trailing slash and query so "/redfish/v1/" and
// "/redfish/v1" are the same resource.
func cleanPath(p string) string {
	for len(p) > 1 && strings.HasSuffix(p, "/") {
		p = strings.TrimSuffix(p, "/")
	}
	return p
}
