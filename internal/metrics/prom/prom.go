// Package prom serves the worker's metrics — the Temporal SDK's and
// rackroll's own (package metrics) — on a Prometheus endpoint, through the
// SDK's OpenTelemetry contrib handler and OpenTelemetry's Prometheus
// exporter.
package prom

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel/attribute"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	"go.temporal.io/sdk/client"
	temporalotel "go.temporal.io/sdk/contrib/opentelemetry"
)

// Endpoint is a running /metrics server.
type Endpoint struct {
	// Handler goes into client.Options.MetricsHandler: every worker and
	// workflow of that client reports through it.
	Handler client.MetricsHandler
	// Addr is the address actually bound (useful with port 0).
	Addr     string
	srv      *http.Server
	provider *sdkmetric.MeterProvider
}

// Serve listens on addr (host:port) and serves /metrics. A registry of its
// own, not Prometheus' global one, keeps two endpoints in one process (tests)
// apart.
func Serve(addr string) (*Endpoint, error) {
	reg := prometheus.NewRegistry()
	exp, err := otelprom.New(otelprom.WithRegisterer(reg))
	if err != nil {
		return nil, fmt.Errorf("prometheus exporter: %w", err)
	}
	provider := sdkmetric.NewMeterProvider(sdkmetric.WithReader(exp),
		sdkmetric.WithResource(resource.NewSchemaless(attribute.String("service.name", "rackroll-worker"))))
	h := temporalotel.NewMetricsHandler(temporalotel.MetricsHandlerOptions{
		Meter: provider.Meter("rackroll"),
		// Counters are monotonic in Prometheus (…_total), as the SDK means them.
		UseMonotonicCounters: true,
		// A metric that cannot be recorded must not panic a workflow task.
		OnError: func(error) {},
	})
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics endpoint %s: %w (pick another --metrics-addr, or \"\" to turn it off)", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	e := &Endpoint{Handler: h, Addr: ln.Addr().String(), provider: provider,
		srv: &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}}
	// Serve returns only when Close shuts it down (or the listener dies,
	// which a scraper notices as a missing target).
	go func() { _ = e.srv.Serve(ln) }()
	return e, nil
}

// Close stops the server.
func (e *Endpoint) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := e.srv.Shutdown(ctx)
	return errors.Join(err, e.provider.Shutdown(ctx))
}
