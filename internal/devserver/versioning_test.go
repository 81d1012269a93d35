package devserver_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/devserver"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/api/workflowservice/v1"
)

// The versioning server comes up on its own (one process, SQLite in
// memory) with what start-dev registered by itself, answers as 1.32.1,
// and leaves nothing behind.
func TestVersioningServerStartsLikeStartDev(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Temporal server")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var log strings.Builder
	s, err := devserver.StartVersioning(ctx, devserver.VersioningOptions{Drainage: 2 * time.Second, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.Client()
	if err != nil {
		s.Stop()
		t.Fatal(err)
	}
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
	c.Close()
	dir := s.Dir()
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("config dir: %v", err)
	}
	s.Stop()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("config dir %s still there after Stop (%v)", dir, err)
	}
}
