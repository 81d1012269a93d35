package main

import (
	"cmp"
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/rackroll/rackroll/activities/bmc"
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/firmware"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/output"
	"github.com/spf13/cobra"
	"go.temporal.io/sdk/client"
)

// serverFirmware is one BMM's firmware against the baseline of the
// version it is judged for (`bmm firmware -o json`).
type serverFirmware struct {
	BMM            string `json:"bmm"`
	RuntimeVersion string `json:"runtimeVersion"`
	Manufacturer   string `json:"manufacturer,omitempty"`
	Model          string `json:"model,omitempty"`
	// NoInventory says why the BMC has no FirmwareInventory (its versions
	// are read from the standard properties); "" when it has one.
	NoInventory string `json:"noInventory,omitempty"`
	firmware.Report
	// Error says why the BMC could not be read; the rows are then empty.
	Error string `json:"error,omitempty"`
	// server is what the BMC showed (upgrade plan plans from it).
	server firmware.Server
}

func (a *app) bmmFirmwareCmd() *cobra.Command {
	var cluster, bmm, version, format string
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "firmware --cluster C [--bmm NAME] [--version V]",
		Short: "Show each server's firmware against its runtime's baseline (✔ / below / unknown)",
		Long: `firmware reads each BMC's firmware versions, from this machine and with the
BMC credentials the inventory references (as site check does), where the BMC
keeps them — its UpdateService/FirmwareInventory, else the standard property
of each component's resource (System.BiosVersion, Manager.FirmwareVersion,
...) — and compares every component the firmware baseline names with its
minimum, saying where each version was read (images.firmware in the
inventory; docs/firmware.md). A server is judged
against the baseline of the runtime version it runs, or of --version (the
target of an upgrade you plan). It only reads. A BMC that cannot be read is
shown with the reason and makes the command exit 1.`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.withClient(cmd, 0, required(flag{"cluster", cluster}), func(ctx context.Context, c client.Client) error {
				st, err := ledgerState(ctx, c, cluster)
				if err != nil {
					return err
				}
				bmms, err := pickBMMs(st, bmm)
				if err != nil {
					return err
				}
				out := readFirmware(ctx, st, bmms, version, timeout)
				if err := output.Write(cmd.OutOrStdout(), format, out, func() output.Table { return firmwareTable(out) }); err != nil {
					return err
				}
				for _, s := range out {
					if s.Error != "" {
						return fmt.Errorf("%s: the firmware of %s could not be read: %s", cluster, s.BMM, s.Error)
					}
				}
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&cluster, "cluster", "", "cluster name")
	cmd.Flags().StringVar(&bmm, "bmm", "", "one bare-metal machine (default: every one)")
	cmd.Flags().StringVar(&version, "version", "", "judge against this runtime version's baseline (default: the version each server runs)")
	cmd.Flags().DurationVar(&timeout, "timeout", 30*time.Second, "per-request timeout for BMCs")
	outputFlag(cmd, &format)
	return cmd
}

// pickBMMs is every BMM of the ledger, or the one named.
func pickBMMs(st api.ClusterState, name string) ([]model.BMM, error) {
	if name == "" {
		return st.Cluster.BMMs, nil
	}
	for _, b := range st.Cluster.BMMs {
		if b.Name == name {
			return []model.BMM{b}, nil
		}
	}
	return nil, fmt.Errorf("--bmm %q: not a BMM of cluster %s", name, st.Cluster.Name)
}

// readFirmware reads the BMCs, eight at a time, and judges each.
func readFirmware(ctx context.Context, st api.ClusterState, bmms []model.BMM, version string, timeout time.Duration) []serverFirmware {
	out := make([]serverFirmware, len(bmms))
	acts := &bmc.Activities{RequestTimeout: timeout, Attempts: 2}
	sem := make(chan struct{}, 8)
	var wg sync.WaitGroup
	for i, b := range bmms {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			v := cmp.Or(version, b.RuntimeVersion, st.Cluster.RuntimeVersion)
			out[i] = serverFirmware{BMM: b.Name, RuntimeVersion: v}
			s, err := acts.ReadFirmware(ctx, bmcEndpoint(b.Name, b.BMC, st.BMCCredentials))
			if err != nil {
				out[i].Error = err.Error()
				return
			}
			out[i].Manufacturer, out[i].Model, out[i].server = s.Manufacturer, s.Model, s
			if s.NoInventory {
				out[i].NoInventory = s.InventoryWhy
			}
			if base := st.Firmware[v]; base != nil {
				out[i].Report = firmware.Judge(base, s)
			} else {
				out[i].Note = "no firmware baseline declared for runtime " + v + " (images.firmware)"
			}
		})
	}
	wg.Wait()
	return out
}

// bmcEndpoint is how the CLI reaches a server's BMC: its inventory entry
// with the named credentials reference (resolved from this machine).
func bmcEndpoint(name string, spec model.BMCSpec, creds map[string]model.CredentialRef) bmc.Endpoint {
	return bmc.Endpoint{BMM: name, Address: spec.Address, CAFile: spec.CAFile, InsecureSkipVerify: spec.InsecureSkipVerify,
		Credentials: bmc.RefOf(creds[spec.Credentials]), BootMode: spec.BootMode}
}

var statusMark = map[firmware.Status]string{firmware.AtBaseline: "✔", firmware.Below: "below", firmware.Unknown: "unknown"}

func firmwareTable(out []serverFirmware) output.Table {
	t := output.Table{Header: []string{"bmm", "runtime", "component", "current", "read from", "minimum", "status", "why"}}
	for _, s := range out {
		switch {
		case s.Error != "":
			t.Rows = append(t.Rows, []string{s.BMM, s.RuntimeVersion, "-", "-", "-", "-", "unread", s.Error})
		case len(s.Rows) == 0:
			t.Rows = append(t.Rows, []string{s.BMM, s.RuntimeVersion, "-", "-", "-", "-", "-", s.Note})
		}
		for _, r := range s.Rows {
			t.Rows = append(t.Rows, []string{s.BMM, s.RuntimeVersion, r.Component, dash(r.Current), dash(r.Source), r.Minimum, statusMark[r.Status], r.Why})
		}
	}
	return t
}
