package devserver_test

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/devserver"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
)

func start(t *testing.T, opts devserver.Options) (*devserver.Server, client.Client) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s, err := devserver.Start(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.Client()
	if err != nil {
		s.Stop()
		t.Fatal(err)
	}
	return s, c
}

// freePort is a port nothing listens on, for a server the test restarts
// on the same port or a UI beside it.
func freePort(t *testing.T) int {
	t.Helper()
	p, err := devserver.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func checkDefaults(t *testing.T, c client.Client) {
	t.Helper()
	ctx := context.Background()
	info, err := c.WorkflowService().GetSystemInfo(ctx, &workflowservice.GetSystemInfoRequest{})
	if err != nil || info.ServerVersion != "1.32.1" {
		t.Errorf("server version %q (%v), want 1.32.1", info.GetServerVersion(), err)
	}
	resp, err := c.OperatorService().ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: "default"})
	if err != nil {
		t.Fatal(err)
	}
	for _, sa := range devserver.SearchAttributes {
		if _, ok := resp.CustomAttributes[sa]; !ok {
			t.Errorf("search attribute %s not registered: %v", sa, resp.CustomAttributes)
		}
	}
}

// The server comes up on its own (one process, SQLite in memory) with
// what start-dev registered by itself, answers as 1.32.1, and leaves
// nothing behind.
func TestServerStartsLikeStartDev(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Temporal server")
	}
	s, c := start(t, devserver.Options{Drainage: 2 * time.Second})
	checkDefaults(t, c)
	c.Close()
	dir := s.Dir()
	if _, err := os.Stat(filepath.Join(dir, "config", "development.yaml")); err != nil {
		t.Fatalf("config: %v", err)
	}
	s.Stop()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("config dir %s still there after Stop (%v)", dir, err)
	}
}

// On a sqlite file the server keeps its runs across a restart on the same
// port (make dev-server, the demo, e2e's RestartServer), and the defaults
// registered the first time do not stop the second start.
func TestServerOnAFileKeepsRunsAcrossARestart(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Temporal server")
	}
	opts := devserver.Options{Port: freePort(t), DBFile: filepath.Join(t.TempDir(), "temporal.db")}
	s, c := start(t, opts)
	ctx := context.Background()
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "kept", TaskQueue: "nobody"}, "NoSuchWorkflow")
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	s.Stop()

	s, c = start(t, opts)
	defer s.Stop()
	defer c.Close()
	checkDefaults(t, c)
	d, err := c.DescribeWorkflowExecution(ctx, "kept", "")
	if err != nil || d.WorkflowExecutionInfo.Execution.RunId != run.GetRunID() {
		t.Fatalf("after the restart, describe kept = %v, %v; want run %s", d, err, run.GetRunID())
	}
}

// With a UI port the Web UI serves beside the server, and stops with it.
func TestServerWithUI(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Temporal server and its UI")
	}
	s, c := start(t, devserver.Options{UIPort: freePort(t)})
	c.Close()
	resp, err := http.Get(s.UIURL + "/api/v1/namespaces/default")
	if err != nil {
		s.Stop()
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"default"`) {
		t.Errorf("UI's API for namespace default: %d %s", resp.StatusCode, body)
	}
	s.Stop()
	if _, err := http.Get(s.UIURL); err == nil {
		t.Errorf("UI %s still serves after Stop", s.UIURL)
	}
}
