package main

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"

	"github.com/spf13/pflag"
	"go.temporal.io/sdk/client"
	"go.uber.org/zap"
)

// healthAddrFlag is --health-addr: off by default for the same reason as
// --metrics-addr (several workers share a host); deploy/ sets :8080.
func healthAddrFlag(fs *pflag.FlagSet) *string {
	return fs.String("health-addr", "", `serve /healthz (the process is up) and /readyz (Temporal answers) on this address, e.g. :8080; "" turns it off`)
}

// serveHealth starts the probe endpoint. Liveness does not depend on
// Temporal: a frontend outage must not restart every worker; readiness
// does, so a worker that cannot reach it is reported, not killed.
func serveHealth(addr string, c client.Client, zl *zap.Logger) (func(), error) {
	if addr == "" {
		return func() {}, nil
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok\n")) })
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
		defer cancel()
		if _, err := c.CheckHealth(ctx, &client.CheckHealthRequest{}); err != nil {
			http.Error(w, "Temporal frontend: "+err.Error(), http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte("ok\n"))
	})
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			zl.Error("health endpoint stopped", zap.Error(err))
		}
	}()
	zl.Info("health endpoint up", zap.String("liveness", "http://"+ln.Addr().String()+"/healthz"), zap.String("readiness", "http://"+ln.Addr().String()+"/readyz"))
	return func() { _ = srv.Close() }, nil
}
