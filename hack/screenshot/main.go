// Command screenshot takes the Temporal UI screenshots under docs/: it
// starts a dev server with the UI, the lab (examples/two-rack.yaml) and a
// worker, drives the site with the real starter CLI (register, a cordon and
// an uncordon, an upgrade that pauses after rack1), then photographs three
// pages of the UI with headless Chromium, driven over the DevTools protocol
// (chromedp).
//
//	go run ./hack/screenshot            # needs bin/ (make tools) and Debian's chromium
//	go run ./hack/screenshot -keep      # then keeps the UI up for a look
//
// The pictures:
//
//   - temporal-ui-workflows.png: the workflow list filtered by
//     RackrollCluster while the upgrade waits after rack1, with the columns
//     Status, Workflow ID, Type, RackrollOperation, RackrollPhase, Start;
//   - temporal-ui-summary.png: that running upgrade's User Metadata tab, its
//     static summary and details and the summaries of its events;
//   - temporal-ui-upgrade.png: the finished upgrade's history, its input,
//     result and timeline of children named by their summaries.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"time"

	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/devserver"
	"github.com/rackroll/rackroll/internal/lab"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/worker/wiring"
)

// namespace is the dev server's, where the starter runs everything.
const namespace = "default"

func main() {
	out := flag.String("out", "docs", "directory for the PNGs")
	inventory := flag.String("inventory", "examples/two-rack.yaml", "site to simulate")
	chromium := flag.String("chromium", "chromium", "Chromium binary (Debian's is /usr/bin/chromium)")
	keep := flag.Bool("keep", false, "keep the site and the UI running until interrupted")
	flag.Parse()
	if err := run(*out, *inventory, *chromium, *keep); err != nil {
		log.Fatal(err)
	}
}

func run(out, inventory, chromium string, keep bool) error {
	ctx := context.Background()
	tmp, err := os.MkdirTemp("", "rackroll-screenshot-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	uiPort, err := devserver.FreePort()
	if err != nil {
		return err
	}
	srv, err := devserver.Start(ctx, devserver.Options{UIPort: uiPort})
	if err != nil {
		return err
	}
	defer srv.Stop()
	log.Printf("Temporal on %s, UI on %s", srv.Address, srv.UIURL)

	inv, err := model.LoadInventory(inventory)
	if err != nil {
		return err
	}
	// Fast hardware, as in the end-to-end tests.
	l, err := lab.Start(ctx, lab.Options{Inventory: inv, Dir: filepath.Join(tmp, "lab"), Timings: lab.FastTimings()})
	if err != nil {
		return err
	}
	defer l.Stop()
	labInv := filepath.Join(tmp, "lab.yaml")
	if err := l.WriteOutInventory(labInv); err != nil {
		return err
	}

	c, err := srv.Client()
	if err != nil {
		return err
	}
	defer c.Close()
	w := wiring.New(c, wiring.Options{PollInterval: 200 * time.Millisecond})
	if err := w.Start(); err != nil {
		return err
	}
	defer w.Stop()

	// The real starter, so the pictures show the summaries and search
	// attributes users get.
	starter := filepath.Join(tmp, "starter")
	if err := sh(nil, "go", "build", "-o", starter, "./starter"); err != nil {
		return err
	}
	env := append(os.Environ(), "TEMPORAL_ADDRESS="+srv.Address, "TEMPORAL_NAMESPACE="+namespace)
	cluster := inv.Cluster
	steps := [][]string{
		{"cluster", "register", "--inventory", labInv},
		{"bmm", "cordon", "--cluster", cluster, "--bmm", "rack1-c1", "--wait"},
		{"bmm", "uncordon", "--cluster", cluster, "--bmm", "rack1-c1", "--wait"},
	}
	for _, s := range steps {
		if err := sh(env, starter, s...); err != nil {
			return err
		}
	}
	// Exit code 3: the upgrade paused after rack1, which is what the
	// pictures show (a live upgrade with its racks as children).
	err = sh(env, starter, "upgrade", "start", "--cluster", cluster, "--version", "4.2.0",
		"--strategy", model.StrategyPauseAfterRack, "--wait-time-minutes", "0", "--wait")
	if ee, ok := err.(*exec.ExitError); err != nil && !(ok && ee.ExitCode() == 3) {
		return fmt.Errorf("upgrade start: %w", err)
	}
	upgradeID := api.UpgradeID(cluster)
	desc, err := c.DescribeWorkflowExecution(ctx, upgradeID, "")
	if err != nil {
		return err
	}
	runID := desc.GetWorkflowExecutionInfo().GetExecution().GetRunId()
	summary, details, err := userMetadata(desc)
	if err != nil {
		return err
	}
	query := api.SearchAttrCluster + `="` + cluster + `"`
	n, err := c.CountWorkflow(ctx, &workflowservice.CountWorkflowExecutionsRequest{Query: query})
	if err != nil {
		return err
	}

	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	b, err := startBrowser(chromium, filepath.Join(tmp, "chromium"), srv.UIURL, namespace)
	if err != nil {
		return err
	}
	defer b.close()
	page := func(id, run, tab string) string {
		return "/namespaces/" + namespace + "/workflows/" + url.PathEscape(id) + "/" + run + "/" + tab
	}
	type shot struct {
		file, path string
		want       []string // texts the page shows once it has loaded
		rows       int      // rows of the workflow list
		before     func() ([]string, error)
	}
	shots := []shot{
		// The whole site while the upgrade waits after rack1: the
		// upgrade and its rack children, the ledger, the monitor and the
		// actions, with our search attributes as columns.
		{file: "temporal-ui-workflows.png", path: "/namespaces/" + namespace + "/workflows?query=" + url.QueryEscape(query),
			want: []string{upgradeID, api.SearchAttrOperation, api.SearchAttrPhase}, rows: int(n.GetCount())},
		// The paused upgrade's summary and details (User Metadata).
		{file: "temporal-ui-summary.png", path: page(upgradeID, runID, "user-metadata"), want: []string{summary, details}},
		// The finished upgrade: input, result and the timeline of its
		// children, rack by rack, each named by its summary.
		{file: "temporal-ui-upgrade.png", path: page(upgradeID, runID, "history"), before: func() ([]string, error) {
			if err := sh(env, starter, "upgrade", "continue", "--cluster", cluster); err != nil {
				return nil, err
			}
			wctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
			defer cancel()
			if err := c.GetWorkflow(wctx, upgradeID, runID).Get(wctx, nil); err != nil {
				return nil, err
			}
			return childSummaries(ctx, c, upgradeID)
		}},
	}
	for _, s := range shots {
		if s.before != nil {
			more, err := s.before()
			if err != nil {
				return err
			}
			s.want = append(s.want, more...)
		}
		file := filepath.Join(out, s.file)
		png, err := b.shoot(srv.UIURL+s.path, s.want, s.rows, filepath.Join(os.TempDir(), "failed-"+s.file))
		if err != nil {
			return err
		}
		if err := os.WriteFile(file, png, 0o644); err != nil {
			return err
		}
		if err := shrink(file); err != nil {
			return err
		}
		log.Printf("wrote %s (%s)", file, s.path)
	}
	if keep {
		log.Printf("UI on %s; Ctrl-C to stop", srv.UIURL)
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, os.Interrupt)
		<-sig
	}
	return nil
}

// userMetadata decodes a workflow's static summary and details.
func userMetadata(desc *workflowservice.DescribeWorkflowExecutionResponse) (summary, details string, err error) {
	md := desc.GetExecutionConfig().GetUserMetadata()
	dc := converter.GetDefaultDataConverter()
	if p := md.GetSummary(); p != nil {
		if err := dc.FromPayload(p, &summary); err != nil {
			return "", "", err
		}
	}
	if p := md.GetDetails(); p != nil {
		if err := dc.FromPayload(p, &details); err != nil {
			return "", "", err
		}
	}
	if summary == "" {
		return "", "", fmt.Errorf("workflow %s has no summary", desc.GetWorkflowExecutionInfo().GetExecution().GetWorkflowId())
	}
	return summary, details, nil
}

// childSummaries lists the summaries of a workflow's children, which its
// history's timeline shows.
func childSummaries(ctx context.Context, c client.Client, parent string) ([]string, error) {
	resp, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Query: `ParentWorkflowId = "` + parent + `"`})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range resp.GetExecutions() {
		desc, err := c.DescribeWorkflowExecution(ctx, e.GetExecution().GetWorkflowId(), e.GetExecution().GetRunId())
		if err != nil {
			return nil, err
		}
		s, _, err := userMetadata(desc)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s has no children", parent)
	}
	return out, nil
}

func sh(env []string, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	log.Printf("$ %s %v", filepath.Base(name), args)
	return cmd.Run()
}
