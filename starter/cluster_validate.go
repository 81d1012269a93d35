package main

import (
	"fmt"

	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/output"
	"github.com/rackroll/rackroll/internal/placement"
	"github.com/spf13/cobra"
)

// loadPlaced reads, validates and places an inventory: every problem at once.
func loadPlaced(path string) (*model.Inventory, []placement.Assignment, error) {
	if path == "" {
		return nil, nil, fmt.Errorf("--inventory is required: the site inventory YAML (see examples/)")
	}
	// checkInventory: in a lab build, the lab's section too.
	inv, err := model.LoadValid(path, checkInventory)
	if err != nil {
		return nil, nil, err
	}
	placed, err := placement.Place(inv)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return inv, placed, nil
}

func (a *app) clusterValidateCmd() *cobra.Command {
	var inventory, format string
	cmd := &cobra.Command{
		Use:   "validate --inventory FILE",
		Short: "Check a site inventory and print the placement of every BMM",
		Long: `validate parses the inventory, reports every problem at once, and prints each
bare-metal machine with its rack, its role (kcp, kcp-spare, management,
compute) as the rack-resiliency placement assigns it, and its management group.`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			inv, placed, err := loadPlaced(inventory)
			if err != nil {
				return err
			}
			if err := output.Write(cmd.OutOrStdout(), format, placed, func() output.Table {
				t := output.Table{Header: []string{"name", "rack", "role", "group"}}
				for _, p := range placed {
					t.Rows = append(t.Rows, []string{p.Name, p.Rack, string(p.Role), dash(p.ManagementGroup)})
				}
				return t
			}); err != nil {
				return err
			}
			if format == "table" {
				fmt.Fprintf(cmd.ErrOrStderr(), "%s: cluster %s, %d racks, %d BMMs: valid\n", inventory, inv.Cluster, len(inv.Racks), len(placed))
				fmt.Fprintln(cmd.ErrOrStderr(), limitsLine(inv.Timeouts.Resolve(), inv.Remediation.WithDefaults()))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&inventory, "inventory", "", "site inventory YAML")
	outputFlag(cmd, &format)
	return cmd
}

// limitsLine is the site's time limits as `cluster validate` and `cluster
// show` print them.
func limitsLine(t model.Timeouts, r model.RemediationSpec) string {
	return fmt.Sprintf("time limits (timeouts:): %s; remediation: reboot %s, reprovision %s", t, r.RebootTimeout, r.ReprovisionTimeout)
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
