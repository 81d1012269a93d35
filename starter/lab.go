//go:build lab

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/rackroll/rackroll/internal/lab"
	"github.com/rackroll/rackroll/internal/lab/faults"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/output"
	"github.com/spf13/cobra"
)

func (a *app) labUpCmd() *cobra.Command {
	var inventory, outInventory, eventsPath, dir, adminAddr string
	cmd := &cobra.Command{
		Use:   "up --inventory FILE --out-inventory FILE [--events FILE]",
		Short: "Start the lab for a site inventory and run until interrupted",
		Long: `up starts a real etcd + kube-apiserver (from bin/, built by make tools), one
Node per BMM with rackroll's labels, tenant workloads, a kubelet simulator,
and one Redfish BMC per BMM on loopback. It writes --out-inventory: the same
site with the lab's BMC addresses, kubeconfig and admin endpoint, so every
other command runs against the lab unchanged.`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if inventory == "" || outInventory == "" {
				return fmt.Errorf("--inventory and --out-inventory are required")
			}
			inv, err := model.LoadValid(inventory, lab.Validate)
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			start := time.Now()
			l, err := lab.Start(ctx, lab.Options{Inventory: inv, Dir: dir, EventsPath: eventsPath, AdminAddr: adminAddr})
			if err != nil {
				return err
			}
			defer l.Stop()
			if err := l.WriteOutInventory(outInventory); err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "lab for cluster %s is up in %.1fs (%d BMMs)\n", inv.Cluster, time.Since(start).Seconds(), len(l.Machines()))
			fmt.Fprintf(w, "kubeconfig:    %s\n", l.Kube.Kubeconfig())
			fmt.Fprintf(w, "etcd:          %s\n", strings.Join(l.EtcdSpec().Endpoints, ","))
			fmt.Fprintf(w, "out-inventory: %s\n", outInventory)
			fmt.Fprintf(w, "admin:         %s\n", l.AdminURL)
			fmt.Fprintf(w, "images:        %s/rackroll-<version>.iso\n", l.ImagesURL())
			if eventsPath != "" {
				fmt.Fprintf(w, "events:        %s\n", eventsPath)
			}
			t := output.Table{Header: []string{"bmm", "rack", "role", "bmc profile", "bmc"}}
			for _, st := range l.Status() {
				bmc := st.BMC + l.Machine(st.Name).BMC.SystemPath()
				if st.Unracked {
					bmc = "not racked yet (starter lab rack)"
				}
				t.Rows = append(t.Rows, []string{st.Name, st.Rack, st.Role, st.Profile, bmc})
			}
			output.WriteTable(w, t)
			fmt.Fprintln(w, "press Ctrl-C to stop the lab")
			<-ctx.Done()
			fmt.Fprintln(w, "stopping the lab")
			return nil
		},
	}
	cmd.Flags().StringVar(&inventory, "inventory", "", "site inventory YAML")
	cmd.Flags().StringVar(&outInventory, "out-inventory", "", "where to write the inventory that points at the lab")
	cmd.Flags().StringVar(&eventsPath, "events", "", "write the lab's event log here (JSON Lines)")
	cmd.Flags().StringVar(&dir, "dir", "", "keep the lab's files here (default: a temp dir removed on exit)")
	cmd.Flags().StringVar(&adminAddr, "admin-addr", "127.0.0.1:0", "listen address of the lab's admin endpoint")
	return cmd
}

// labAdmin reads the admin endpoint from an out-inventory.
func labAdmin(path string) (string, error) {
	if path == "" {
		return "", fmt.Errorf("--inventory is required: the inventory written by `starter lab up --out-inventory`")
	}
	inv, err := model.LoadInventory(path)
	if err != nil {
		return "", fmt.Errorf("%s:\n%w", path, err)
	}
	s, err := lab.SectionOf(inv)
	if err != nil {
		return "", fmt.Errorf("%s:\n%w", path, err)
	}
	if s.Admin == "" {
		return "", fmt.Errorf("%s has no labAdmin: use the inventory written by `starter lab up --out-inventory`", path)
	}
	return s.Admin, nil
}

func (a *app) labFaultCmd() *cobra.Command {
	var inventory, kind string
	var req lab.FaultRequest
	cmd := &cobra.Command{
		Use:   "fault --inventory lab.yaml --bmm NAME --kind KIND [--rate R] [--clear]",
		Short: "Inject or clear a fault on one BMM of a running lab",
		Long: "Fault kinds: " + faults.Join(faults.All()) + ".\n--rate applies to " + faults.Join(faults.Rated()) +
			": the share of requests\nthat fail (0 or absent: every request).",
		RunE: func(cmd *cobra.Command, _ []string) error {
			admin, err := labAdmin(inventory)
			if err != nil {
				return err
			}
			if req.BMM == "" || kind == "" {
				return fmt.Errorf("--bmm and --kind are required")
			}
			req.Kind = faults.Kind(kind)
			if err := req.Kind.Check(); err != nil {
				return err
			}
			body, _ := json.Marshal(req)
			ctx, cancel := context.WithTimeout(cmd.Context(), 10*time.Second)
			defer cancel()
			hr, _ := http.NewRequestWithContext(ctx, http.MethodPost, admin+"/faults", bytes.NewReader(body))
			hr.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(hr)
			if err != nil {
				return fmt.Errorf("lab admin %s: %w (is `starter lab up` still running?)", admin, err)
			}
			defer resp.Body.Close()
			var out map[string]any
			json.NewDecoder(resp.Body).Decode(&out)
			if resp.StatusCode != http.StatusOK {
				return fmt.Errorf("%v", out["error"])
			}
			verb := "injected"
			if req.Clear {
				verb = "cleared"
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s fault %s on %s\n", verb, req.Kind, req.BMM)
			return nil
		},
	}
	cmd.Flags().StringVar(&inventory, "inventory", "", "inventory written by `starter lab up`")
	cmd.Flags().StringVar(&req.BMM, "bmm", "", "bare-metal machine name")
	cmd.Flags().StringVar(&kind, "kind", "", "fault kind")
	cmd.Flags().Float64Var(&req.Rate, "rate", 0, "share of requests affected, 0–1 (0: all)")
	cmd.Flags().BoolVar(&req.Clear, "clear", false, "remove the fault instead")
	return cmd
}

func (a *app) labStatusCmd() *cobra.Command {
	var inventory, format string
	cmd := &cobra.Command{
		Use:   "status --inventory lab.yaml",
		Short: "Show the simulated hardware of a running lab (power, version, reimage and firmware update counts)",
		RunE: func(cmd *cobra.Command, _ []string) error {
			admin, err := labAdmin(inventory)
			if err != nil {
				return err
			}
			resp, err := http.Get(admin + "/machines")
			if err != nil {
				return fmt.Errorf("lab admin %s: %w (is `starter lab up` still running?)", admin, err)
			}
			defer resp.Body.Close()
			var ms []lab.MachineStatus
			if err := json.NewDecoder(resp.Body).Decode(&ms); err != nil {
				return err
			}
			return output.Write(cmd.OutOrStdout(), format, ms, func() output.Table {
				t := output.Table{Header: []string{"bmm", "rack", "role", "power", "os", "version", "reimages", "fw updates"}}
				for _, m := range ms {
					osr := "down"
					if m.OSRunning {
						osr = "running"
					}
					if m.Unracked {
						m.Power = "unracked" // lab.unracked: `starter lab rack` racks it
					}
					t.Rows = append(t.Rows, []string{m.Name, m.Rack, m.Role, m.Power, osr, m.RuntimeVersion, fmt.Sprint(m.ReimageCount), fmt.Sprint(m.UpdateRequests)})
				}
				return t
			})
		},
	}
	cmd.Flags().StringVar(&inventory, "inventory", "", "inventory written by `starter lab up`")
	outputFlag(cmd, &format)
	return cmd
}
