package toolbin

// The Temporal binaries `make tools` builds into bin/, named with their
// versions so that a new pin in the Makefile builds anew (the Makefile's
// TEMPORAL_SERVER_VERSION and TEMPORAL_UI_VERSION; TestTemporalNamesMatchTheMakefile).
const (
	// TemporalServer is the server's own cmd/server: a process per service
	// on PostgreSQL for the production test (internal/temporalcluster).
	// 1.32.1 is the first that asks a new build on continue-as-new and stops
	// runs bouncing between versions (docs/self-upgrade.md).
	TemporalServer = "temporal-server-v1.32.1"
	// TemporalDevServer is the same server, every service in one process
	// with static membership as the CLI's start-dev runs it
	// (hack/temporaldev): on SQLite for the tests, the demo and
	// `make dev-server` (internal/devserver).
	TemporalDevServer = "temporal-devserver-v1.32.1"
	// TemporalSQLTool sets up and updates the server's SQL schemas.
	TemporalSQLTool = "temporal-sql-tool-v1.32.1"
	// TemporalUI is the Temporal Web UI's server, the one the CLI v1.5.1
	// bundles in start-dev, run beside TemporalServer when a UI is asked.
	TemporalUI = "temporal-ui-server-v2.42.1"
)
