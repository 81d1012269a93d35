package bench_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/devserver"
	"github.com/rackroll/rackroll/internal/lab"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/placement"
	"github.com/rackroll/rackroll/internal/temporalcluster"
	enumspb "go.temporal.io/api/enums/v1"
	taskqueuepb "go.temporal.io/api/taskqueue/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
)

// fleetTemporal is the Temporal the fleet runs on: the production-shaped
// cluster (PostgreSQL, a process per service) for the figures, the dev
// server in the small run.
type fleetTemporal struct {
	address string
	client  client.Client
	cluster *temporalcluster.Cluster // nil on the dev server
}

func startFleetTemporal(b *testing.B, production bool) *fleetTemporal {
	b.Helper()
	ctx := context.Background()
	ft := &fleetTemporal{}
	if production {
		tc, err := temporalcluster.Start(ctx)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(tc.Stop)
		b.Cleanup(func() {
			if b.Failed() {
				b.Log(tc.Logs())
			}
		})
		ft.cluster, ft.address = tc, tc.Address
		registerNamespace(b, tc)
	} else {
		srv, err := devserver.Start(ctx, devserver.Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(srv.Stop)
		ft.address = srv.Address
	}
	c, err := client.Dial(client.Options{HostPort: ft.address, Namespace: temporalcluster.Namespace,
		Logger: sdklog.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.Close)
	ft.client = c
	return ft
}

// registerNamespace does what an operator does once (test/production does
// the same): the namespace and rackroll's search attributes with the
// Temporal CLI, then waits until a list query on them answers.
func registerNamespace(b *testing.B, tc *temporalcluster.Cluster) {
	ctx := context.Background()
	if _, err := tc.CLI(ctx, "operator", "namespace", "create", "--namespace", temporalcluster.Namespace, "--retention", "72h"); err != nil {
		b.Fatal(err)
	}
	args := []string{"operator", "search-attribute", "create", "--namespace", temporalcluster.Namespace}
	for _, sa := range devserver.SearchAttributes {
		args = append(args, "--name", sa, "--type", "Keyword")
	}
	eventually(b, time.Minute, "the search attributes are created", func() error {
		_, err := tc.CLI(ctx, args...)
		return err
	})
	eventually(b, time.Minute, "the namespace and search attributes are usable", func() error {
		_, err := tc.CLI(ctx, "workflow", "list", "--namespace", temporalcluster.Namespace,
			"--query", `RackrollCluster="probe" AND RackrollPhase="probe"`)
		return err
	})
}

func eventually(b *testing.B, within time.Duration, what string, f func() error) {
	b.Helper()
	deadline := time.Now().Add(within)
	for {
		err := f()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("%s: not within %v: %v", what, within, err)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

var (
	saCluster   = temporal.NewSearchAttributeKeyKeyword(api.SearchAttrCluster)
	saOperation = temporal.NewSearchAttributeKeyKeyword(api.SearchAttrOperation)
	saPhase     = temporal.NewSearchAttributeKeyKeyword(api.SearchAttrPhase)
)

// registerSites starts each site's ledger as `starter cluster register`
// does (its placement, its search attributes), every site with a site
// section, so its BMC and Kubernetes activities go to its own queue
// (model.SiteTaskQueue), and returns the sites' names and BMM count.
func registerSites(b *testing.B, c client.Client, size fleetSize) (sites []string, servers int) {
	b.Helper()
	ctx := context.Background()
	for _, name := range size.names() {
		inv := lab.SyntheticInventory(name, size.racks, size.mgmt, size.computes)
		inv.Kubernetes.Kubeconfig = filepath.Join(b.TempDir(), "unused") // the instant hardware reads none
		inv.Site = &model.SiteSpec{}
		placed, err := placement.Place(inv)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: api.ClusterID(inv.Cluster), TaskQueue: api.TaskQueue,
			TypedSearchAttributes: temporal.NewSearchAttributes(saCluster.ValueSet(inv.Cluster), saOperation.ValueSet("ledger"))},
			api.ClusterWorkflowName, api.ClusterInput{Inventory: *inv, Placement: placed}); err != nil {
			b.Fatal(err)
		}
		sites = append(sites, inv.Cluster)
		servers += len(placed)
	}
	// Each ledger answers with its site's queue once its worker runs.
	for _, s := range sites {
		eventually(b, 2*time.Minute, "the ledger of "+s+" answers", func() error {
			qctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			v, err := c.QueryWorkflow(qctx, api.ClusterID(s), "", api.QueryState)
			if err != nil {
				return err
			}
			var st api.ClusterState
			if err := v.Get(&st); err != nil {
				return err
			}
			if st.SiteTaskQueue != model.SiteTaskQueue(s) {
				return fmt.Errorf("site task queue %q, want %q", st.SiteTaskQueue, model.SiteTaskQueue(s))
			}
			return nil
		})
	}
	return sites, servers
}

// names are the fleet's sites: site-01, site-02, …
func (s fleetSize) names() []string {
	out := make([]string, s.sites)
	for i := range out {
		out[i] = fmt.Sprintf("site-%02d", i+1)
	}
	return out
}

// waitPollers waits until a worker polls each site's queue for activities:
// the fleet judges a site none polls unreachable, and halts.
func waitPollers(b *testing.B, c client.Client, sites []string) {
	b.Helper()
	for _, s := range sites {
		eventually(b, 2*time.Minute, "a worker polls "+model.SiteTaskQueue(s), func() error {
			resp, err := c.WorkflowService().DescribeTaskQueue(context.Background(), &workflowservice.DescribeTaskQueueRequest{
				Namespace: temporalcluster.Namespace, TaskQueueType: enumspb.TASK_QUEUE_TYPE_ACTIVITY,
				TaskQueue: &taskqueuepb.TaskQueue{Name: model.SiteTaskQueue(s), Kind: enumspb.TASK_QUEUE_KIND_NORMAL}})
			if err == nil && len(resp.GetPollers()) == 0 {
				err = fmt.Errorf("no poller yet")
			}
			return err
		})
	}
}
