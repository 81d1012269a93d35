//go:build lab

package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/rackroll/rackroll/internal/devserver"
	"github.com/rackroll/rackroll/internal/lab"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/toolbin"
	"github.com/spf13/cobra"
)

// demoCmd is `make demo`: dev server + UI, the lab, a worker, a registered
// cluster and a full runtime upgrade with live progress, then a summary.
func (a *app) demoCmd() *cobra.Command {
	var inventory, version string
	var port, uiPort int
	var once bool
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run a whole runtime upgrade against the lab, with the Temporal UI up",
		Long: `demo starts the Temporal dev server (UI on :8233), the lab for the inventory,
and a worker (bin/worker); registers the cluster; and runs a full runtime
upgrade with live progress and a final summary. It keeps everything up until
Ctrl-C (--once: exit after the summary, 0 on success), then stops all it
started.`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return a.demo(ctx, cmd, inventory, version, port, uiPort, once)
		},
	}
	cmd.Flags().StringVar(&inventory, "inventory", "examples/four-rack.yaml", "site inventory for the lab")
	cmd.Flags().StringVar(&version, "version", "", "target version (default: the next minor of the inventory's)")
	cmd.Flags().IntVar(&port, "port", 7233, "Temporal frontend port (0: a free one)")
	cmd.Flags().IntVar(&uiPort, "ui-port", 8233, "Temporal UI port (0: a free one)")
	cmd.Flags().BoolVar(&once, "once", false, "exit after the summary instead of waiting for Ctrl-C")
	return cmd
}

func (a *app) demo(ctx context.Context, cmd *cobra.Command, inventory, version string, port, uiPort int, once bool) error {
	w := cmd.OutOrStdout()
	inv, placed, err := loadPlaced(inventory)
	if err != nil {
		return err
	}
	if version == "" {
		v, err := model.ParseVersion(inv.RuntimeVersion)
		if err != nil {
			return err
		}
		version = fmt.Sprintf("%d.%d.0", v.Major, v.Minor+1)
	}
	workerBin, err := toolbin.Path("worker")
	if err != nil {
		return fmt.Errorf("%w (make demo builds it)", err)
	}
	for _, p := range []*int{&port, &uiPort} {
		if *p == 0 {
			if *p, err = devserver.FreePort(); err != nil {
				return err
			}
		} else if busy(*p) {
			return fmt.Errorf("port %d is busy: is `make dev-server` or another demo running? Stop it, or pass --port/--ui-port", *p)
		}
	}
	dir, err := os.MkdirTemp("", "rackroll-demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)

	fmt.Fprintf(w, ">> starting the Temporal dev server on 127.0.0.1:%d (UI http://127.0.0.1:%d)\n", port, uiPort)
	srv, err := devserver.Start(ctx, devserver.Options{Port: port, UIPort: uiPort, DBFile: filepath.Join(dir, "temporal.db")})
	if err != nil {
		return err
	}
	defer srv.Stop()
	a.conn.Address = srv.Address

	fmt.Fprintf(w, ">> starting the lab for %s (%d BMMs)\n", inventory, len(placed))
	l, err := lab.Start(ctx, lab.Options{Inventory: inv, Dir: filepath.Join(dir, "lab"), EventsPath: filepath.Join(dir, "events.jsonl"),
		Timings: lab.Timings{Boot: model.Duration(time.Second), Reimage: model.Duration(2 * time.Second),
			PowerTransition: model.Duration(300 * time.Millisecond), Drain: model.Duration(500 * time.Millisecond)}})
	if err != nil {
		return err
	}
	defer l.Stop()
	labInv := filepath.Join(dir, "lab.yaml")
	if err := l.WriteOutInventory(labInv); err != nil {
		return err
	}

	fmt.Fprintln(w, ">> starting the worker")
	wlog, err := os.Create(filepath.Join(dir, "worker.log"))
	if err != nil {
		return err
	}
	defer wlog.Close()
	// The worker runs outside any pod: --kubeconfig names the cluster it
	// reads Secrets from (a BMC keyset's passwords), the lab's here.
	worker := exec.Command(workerBin, "--address", srv.Address, "--poll-interval", "500ms", "--kubeconfig", l.Kube.Kubeconfig())
	worker.Stdout, worker.Stderr = wlog, wlog
	worker.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := worker.Start(); err != nil {
		return err
	}
	defer func() {
		syscall.Kill(-worker.Process.Pid, syscall.SIGTERM)
		worker.Wait()
	}()

	keysetFile, err := demoBMCKeyset(ctx, l, dir)
	if err != nil {
		return err
	}
	steps := [][]string{
		{"cluster", "register", "--inventory", labInv},
		// A BMC account on every BMC, its password from a Secret the
		// worker reads through its kubeconfig (docs/keysets-bmc.md).
		{"keyset", "create", "--cluster", inv.Cluster, "--file", keysetFile},
		{"upgrade", "plan", "--cluster", inv.Cluster, "--version", version, "--wait-time-minutes", "0", "--per-server", "10s"},
		{"upgrade", "start", "--cluster", inv.Cluster, "--version", version, "--wait-time-minutes", "0",
			"--drain-timeout", "20s", "--vm-shutdown-timeout", "10s", "--wait"},
		{"keyset", "show", "--cluster", inv.Cluster, "--name", demoKeyset},
	}
	var runErr error
	for _, args := range steps {
		fmt.Fprintf(w, "\n$ starter %s\n", joinArgs(args))
		if runErr = a.sub(ctx, w, cmd.ErrOrStderr(), args); runErr != nil {
			break
		}
	}
	if runErr == nil {
		st, err := a.clusterState(ctx, inv.Cluster)
		if err == nil {
			var cordoned []string
			for _, b := range st.Cluster.BMMs {
				// The retired KCP waits cordoned and powered off as the
				// spare by design; a failure is what this line is for.
				retired := b.HasRole(model.RoleKCPSpare) && b.DetailedStatus == model.BMMAvailable
				if b.CordonStatus == model.Cordoned && !retired {
					cordoned = append(cordoned, b.Name)
				}
			}
			fmt.Fprintf(w, "left cordoned: %s\n", dash(joinArgs(cordoned)))
		}
		fmt.Fprintf(w, "\nThe workflows are in the Temporal UI: http://127.0.0.1:%d/namespaces/default/workflows\n", uiPort)
	}
	if once {
		return runErr
	}
	if runErr != nil {
		fmt.Fprintf(cmd.ErrOrStderr(), "error: %v\n", runErr)
	}
	fmt.Fprintln(w, "press Ctrl-C to stop the dev server, the lab and the worker")
	<-ctx.Done()
	return runErr
}

// sub runs one starter command against the demo's server.
func (a *app) sub(ctx context.Context, out, errw io.Writer, args []string) error {
	root := newRoot()
	root.SetOut(out)
	root.SetErr(errw)
	root.SetArgs(append(args, "--address", a.conn.Address))
	return root.ExecuteContext(ctx)
}

func joinArgs(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += " "
		}
		out += x
	}
	return out
}

func busy(port int) bool {
	l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return true
	}
	l.Close()
	return false
}
