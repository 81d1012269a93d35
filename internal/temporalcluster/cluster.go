// Package temporalcluster runs a production-shaped Temporal for tests: a
// PostgreSQL server of its own, both databases migrated with
// temporal-sql-tool, and each Temporal service (history, matching,
// frontend, worker) as a separate temporal-server process from a generated
// config — all on loopback ports in a temp dir. Services can be restarted
// one by one, as in a rolling restart. The namespace and search attributes
// are left to the caller, who registers them as an operator does.
package temporalcluster

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rackroll/rackroll/internal/toolbin"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// Cluster is a running Temporal cluster.
type Cluster struct {
	Address  string // the frontend, host:port
	Dir      string // config, logs and PostgreSQL's data; removed by Stop
	Postgres *Postgres
	layout   layout
	services map[string]*Process
}

// healthNames are the gRPC health services the Temporal services report
// SERVING once they are ready (history: once it owns its shards).
var healthNames = map[string]string{
	"history":  "temporal.api.workflowservice.v1.HistoryService",
	"matching": "temporal.api.workflowservice.v1.MatchingService",
	"frontend": "temporal.api.workflowservice.v1.WorkflowService",
}

// Start brings up PostgreSQL, the schemas and the four services, and
// returns once every service is ready. On error everything started is
// stopped again.
func Start(ctx context.Context) (c *Cluster, err error) {
	server, err := toolbin.Path(toolbin.TemporalServer)
	if err != nil {
		return nil, err
	}
	c = &Cluster{services: map[string]*Process{}}
	if c.Dir, err = os.MkdirTemp(tempBase(), "rackroll-temporal-cluster-"); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			c.Stop()
		}
	}()
	if c.Postgres, err = startPostgres(ctx, c.Dir); err != nil {
		return c, err
	}
	if err = createSchemas(ctx, c.Postgres); err != nil {
		return c, err
	}
	if c.layout, err = writeConfig(c.Dir, c.Postgres.Addr, c.Postgres.Password); err != nil {
		return c, err
	}
	c.Address = c.layout.FrontendAddr()
	for i, s := range Services {
		p := NewProcess(s, filepath.Join(c.Dir, s+".log"), nil, server,
			"--root", c.Dir, "--config", "config", "--env", "development", "--allow-no-auth", "start", "--service", s)
		c.services[s] = p
		if err = p.Start(); err != nil {
			return c, err
		}
		if i == 0 {
			// Every service writes the cluster metadata record when it
			// finds none; started together on empty databases, the
			// losers of that insert exit ("failed to initialize current
			// cluster metadata"). The first one writes it alone.
			if err = c.waitClusterMetadata(ctx, p); err != nil {
				return c, err
			}
		}
	}
	for _, s := range Services {
		if err = c.waitReady(ctx, s); err != nil {
			return c, err
		}
	}
	return c, nil
}

// Restart stops one service gracefully (SIGTERM, as a rolling restart
// does) and starts it again with the same config, waiting until it is
// ready.
func (c *Cluster) Restart(ctx context.Context, service string) error {
	p, ok := c.services[service]
	if !ok {
		return fmt.Errorf("no service %q (have %v)", service, Services)
	}
	p.Stop(syscall.SIGTERM)
	if err := p.Start(); err != nil {
		return err
	}
	return c.waitReady(ctx, service)
}

// ShardRangeIDs maps each history shard to its range id, which the history
// host that acquires the shard increments: a restart that moved shard
// ownership shows as higher range ids.
func (c *Cluster) ShardRangeIDs(ctx context.Context) (map[string]int64, error) {
	rows, err := c.Postgres.Query(ctx, Database, "SELECT shard_id, range_id FROM shards ORDER BY shard_id")
	if err != nil {
		return nil, err
	}
	out := map[string]int64{}
	for _, r := range rows {
		id, rangeID, _ := strings.Cut(r, "|")
		n, err := strconv.ParseInt(rangeID, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("shards row %q: %w", r, err)
		}
		out[id] = n
	}
	return out, nil
}

// Starts counts the incarnations of a service.
func (c *Cluster) Starts(service string) int {
	return c.services[service].Starts()
}

// waitReady waits for the service's gRPC health (the worker service, which
// serves none, for its membership port).
func (c *Cluster) waitReady(ctx context.Context, service string) error {
	p := c.services[service]
	ports := c.layout.Services[service]
	return p.waitFor(ctx, 2*time.Minute, func() error {
		name, ok := healthNames[service]
		if !ok {
			conn, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", ports.Membership), time.Second)
			if err == nil {
				conn.Close()
			}
			return err
		}
		return healthy(ctx, fmt.Sprintf("127.0.0.1:%d", ports.GRPC), name)
	})
}

// waitClusterMetadata waits until p has recorded the cluster metadata.
func (c *Cluster) waitClusterMetadata(ctx context.Context, p *Process) error {
	return p.waitFor(ctx, 2*time.Minute, func() error {
		rows, err := c.Postgres.Query(ctx, Database, "SELECT count(*) FROM cluster_metadata_info")
		if err != nil {
			return err
		}
		if len(rows) != 1 || rows[0] == "0" {
			return fmt.Errorf("no cluster metadata recorded yet (%v)", rows)
		}
		return nil
	})
}

func healthy(ctx context.Context, addr, name string) error {
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return err
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	resp, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{Service: name})
	if err != nil {
		return err
	}
	if resp.Status != healthpb.HealthCheckResponse_SERVING {
		return fmt.Errorf("%s reports %v", name, resp.Status)
	}
	return nil
}

// Stop stops the services (frontend first, so clients fail fast), then
// PostgreSQL, and removes Dir.
func (c *Cluster) Stop() {
	for _, s := range []string{"frontend", "worker", "matching", "history"} {
		if p := c.services[s]; p != nil {
			p.Stop(syscall.SIGTERM)
		}
	}
	if c.Postgres != nil {
		c.Postgres.Stop()
	}
	if c.Dir != "" {
		os.RemoveAll(c.Dir)
	}
}

// Logs returns the end of every process's log, for a failing test.
func (c *Cluster) Logs() string {
	var b strings.Builder
	for _, s := range Services {
		if p := c.services[s]; p != nil {
			fmt.Fprintf(&b, "---- temporal %s ----\n%s\n", s, p.Tail())
		}
	}
	if c.Postgres != nil && c.Postgres.proc != nil {
		fmt.Fprintf(&b, "---- postgres ----\n%s\n", c.Postgres.proc.Tail())
	}
	return b.String()
}

// CLI runs bin/temporal against the cluster's frontend (TEMPORAL_ADDRESS,
// TEMPORAL_NAMESPACE) with none of the caller's environment, and returns
// its combined output.
func (c *Cluster) CLI(ctx context.Context, args ...string) (string, error) {
	bin, err := toolbin.Path("temporal")
	if err != nil {
		return "", err
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = []string{"HOME=" + c.Dir, "TEMPORAL_ADDRESS=" + c.Address, "TEMPORAL_NAMESPACE=" + Namespace}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("temporal %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

// Pids maps each running service to its process id (for /proc readings:
// a benchmark's CPU and memory per service).
func (c *Cluster) Pids() map[string]int {
	out := map[string]int{}
	for s, p := range c.services {
		if pid := p.Pid(); pid != 0 {
			out[s] = pid
		}
	}
	return out
}
