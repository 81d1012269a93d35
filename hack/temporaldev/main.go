// Command temporal-devserver is the Temporal server 1.32.1 that
// internal/devserver runs for the tests, the demo and `make dev-server`:
// every service in one process, configured by the same config files as
// the server's own cmd/server, but with static membership instead of
// ringpop — as the Temporal CLI's start-dev builds it
// (temporalcli/devserver/server.go, temporal.WithStaticHosts). In one
// process the four services gossiping over ringpop cost ~9 % of a core
// idle, over half of it the gossip itself; a site's server sits mostly
// idle while the lab's hardware boots.
//
// Kept in a tools module of its own (like hack/tctl) so the server's
// dependencies stay out of rackroll's go.mod; `make tools` builds it.
package main

import (
	"flag"
	"fmt"
	"os"
	_ "time/tzdata" // as cmd/server: tzdata when the host has none

	"go.temporal.io/server/common/authorization"
	"go.temporal.io/server/common/config"
	"go.temporal.io/server/common/log"
	"go.temporal.io/server/common/membership/static"
	_ "go.temporal.io/server/common/persistence/sql/sqlplugin/sqlite" // the SQLite stores
	"go.temporal.io/server/common/primitives"
	"go.temporal.io/server/temporal"
)

func main() {
	dir := flag.String("config-dir", "config", "directory of the static config (development.yaml)")
	env := flag.String("env", "development", "config environment: <env>.yaml in --config-dir")
	flag.Parse()
	if err := run(*dir, *env); err != nil {
		fmt.Fprintln(os.Stderr, "temporal-devserver:", err)
		os.Exit(1)
	}
}

func run(dir, env string) error {
	cfg, err := config.Load(config.WithEnv(env), config.WithConfigDir(dir))
	if err != nil {
		return fmt.Errorf("load the config: %w", err)
	}
	logger := log.NewZapLogger(log.BuildZapLogger(cfg.Log))
	// Each service at its one gRPC address on loopback: nothing to gossip.
	hosts := map[primitives.ServiceName]static.Hosts{}
	for _, name := range temporal.DefaultServices {
		svc, ok := cfg.Services[name]
		if !ok {
			return fmt.Errorf("the config has no %q service", name)
		}
		hosts[primitives.ServiceName(name)] = static.SingleLocalHost(fmt.Sprintf("127.0.0.1:%d", svc.RPC.GRPCPort))
	}
	s, err := temporal.NewServer(
		temporal.ForServices(temporal.DefaultServices),
		temporal.WithConfig(cfg),
		temporal.WithLogger(logger),
		temporal.WithStaticHosts(hosts),
		temporal.WithAuthorizer(authorization.NewNoopAuthorizer()),
		temporal.InterruptOn(temporal.InterruptCh()),
	)
	if err != nil {
		return fmt.Errorf("create the server: %w", err)
	}
	return s.Start()
}
