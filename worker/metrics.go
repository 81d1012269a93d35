package main

import (
	"github.com/rackroll/rackroll/internal/metrics/prom"
	"github.com/spf13/pflag"
	"go.temporal.io/sdk/client"
	"go.uber.org/zap"
)

// metricsAddrFlag is --metrics-addr. Off by default: several workers often
// share one host (a central and a site worker in the lab, tests running
// the binary in parallel), and a fixed default port would make the second
// fail to start. Production sets it, e.g. 127.0.0.1:9464 (OpenTelemetry's
// Prometheus port) behind a scraper sidecar, or :9464 in a container.
func metricsAddrFlag(fs *pflag.FlagSet) *string {
	return fs.String("metrics-addr", "", `serve Prometheus metrics (SDK and rackroll_*) on this address at /metrics, e.g. 127.0.0.1:9464; "" turns it off`)
}

// serveMetrics starts the endpoint and returns the handler for
// client.Options.MetricsHandler (nil when addr is "") and a stop function.
func serveMetrics(addr string, zl *zap.Logger) (client.MetricsHandler, func(), error) {
	if addr == "" {
		return nil, func() {}, nil
	}
	e, err := prom.Serve(addr)
	if err != nil {
		return nil, nil, err
	}
	zl.Info("metrics endpoint up", zap.String("url", "http://"+e.Addr+"/metrics"))
	return e.Handler, func() { _ = e.Close() }, nil
}
