// Command screenshot takes the Temporal UI screenshots under docs/: it
// starts a dev server with the UI, the lab (examples/two-rack.yaml) and a
// worker, drives the site with the real starter CLI (register, a cordon and
// an uncordon, an upgrade that pauses after rack1), then photographs the
// workflow list and the upgrade's page with headless Chromium.
//
//	go run ./hack/screenshot            # needs bin/ (make tools) and chromium
//	go run ./hack/screenshot -keep      # then keeps the UI up for a look
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

	"github.com/rackroll/rackroll/internal/devserver"
	"github.com/rackroll/rackroll/internal/lab"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/workerapp"
	"github.com/rackroll/rackroll/workflows/api"
)

func main() {
	out := flag.String("out", "docs", "directory for the PNGs")
	inventory := flag.String("inventory", "examples/two-rack.yaml", "site to simulate")
	chromium := flag.String("chromium", "chromium", "headless Chromium binary")
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
	// Fast hardware, as in the end-to-end tests: the pictures need a
	// finished history, not realistic minutes.
	l, err := lab.Start(ctx, lab.Options{Inventory: inv, Dir: filepath.Join(tmp, "lab"), Timings: model.LabTimings{
		Boot: model.Duration(300 * time.Millisecond), Reimage: model.Duration(500 * time.Millisecond),
		PowerTransition: model.Duration(100 * time.Millisecond), Drain: model.Duration(200 * time.Millisecond)}})
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
	w := workerapp.New(c, workerapp.Options{PollInterval: 200 * time.Millisecond})
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
	env := append(os.Environ(), "TEMPORAL_ADDRESS="+srv.Address, "TEMPORAL_NAMESPACE=default")
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
	desc, err := c.DescribeWorkflowExecution(ctx, api.UpgradeID(cluster), "")
	if err != nil {
		return err
	}
	runID := desc.GetWorkflowExecutionInfo().GetExecution().GetRunId()

	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	shots := []struct{ file, path string }{
		{"temporal-ui-workflows.png", "/namespaces/default/workflows?query=" + url.QueryEscape(api.SearchAttrCluster+`="`+cluster+`"`)},
		{"temporal-ui-upgrade.png", "/namespaces/default/workflows/" + url.PathEscape(api.UpgradeID(cluster)) + "/" + runID + "/history"},
	}
	for i, s := range shots {
		if i == 1 {
			// The page of a running workflow long-polls its history, which
			// keeps Chromium's virtual time from running out: finish the
			// upgrade first (the list above shows it paused).
			if err := sh(env, starter, "upgrade", "continue", "--cluster", cluster); err != nil {
				return err
			}
			wctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
			err := c.GetWorkflow(wctx, api.UpgradeID(cluster), runID).Get(wctx, nil)
			cancel()
			if err != nil {
				return err
			}
		}
		file := filepath.Join(out, s.file)
		if err := screenshot(chromium, filepath.Join(tmp, "chrome-"+s.file), srv.UIURL+s.path, file); err != nil {
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

// screenshot renders url with headless Chromium into file. The UI is a
// single-page app that fetches after load: the virtual time budget lets
// it finish before the picture is taken. A fresh profile per shot keeps
// earlier runs' state (and first-run dialogs) out of the picture. The
// page of a running workflow keeps long-polling, so virtual time may never
// run out: the context ends a Chromium that hangs.
func screenshot(chromium, profile, url, file string) error {
	abs, err := filepath.Abs(file)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
		"--user-data-dir="+profile, "--window-size=1600,1000", "--virtual-time-budget=15000",
		"--screenshot="+abs, url)
	cmd.Stdout = os.Stdout // Chromium's stderr is noise about D-Bus and GPUs
	log.Printf("$ chromium --screenshot=%s %s", file, url)
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("chromium %s: %w", url, err)
	}
	return nil
}

func sh(env []string, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	log.Printf("$ %s %v", filepath.Base(name), args)
	return cmd.Run()
}
