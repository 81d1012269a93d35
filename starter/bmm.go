package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/spf13/cobra"
	"go.temporal.io/sdk/client"
)

func (a *app) bmmCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bmm",
		Short: "Act on one bare-metal machine: " + strings.Join(api.Actions, ", ") + ", troubleshoot",
		Long: `Each action runs as BMMActionWorkflow (id action:<cluster>:<bmm>:<n>) holding a lease
from the cluster's ledger. Restart, power-off, reimage and replace are disruptive:
on a KCP server they are refused while another KCP disruption runs or the KCP set
is not full (docs/behaviour.md#control-plane). On a Degraded or Failed cluster an action needs
--force --reason TEXT (recorded; the live control-plane gate still applies,
no flag skips it). A replace of a server whose firmware is below the baseline
of the runtime it installs is refused, naming each component; --apply-firmware
applies the baseline first, --force --reason TEXT skips the check (recorded). A refusal is printed and exits 1; with --wait (or
--watch, which also shows the step in progress) a failed action exits 2.`,
	}
	for _, act := range api.Actions {
		cmd.AddCommand(a.bmmActionCmd(act))
	}
	cmd.AddCommand(a.bmmTroubleshootCmd(), a.bmmTroubleshootConfirmCmd(), a.bmmTroubleshootStatusCmd(), a.bmmFirmwareCmd())
	return cmd
}

var actionShort = map[string]string{
	api.ActionRestart:  "Power-cycle the BMM and wait until its node is Ready (40 min limit)",
	api.ActionPowerOff: "Power the BMM off, gracefully unless --skip-shutdown (40 min limit)",
	api.ActionStart:    "Power the BMM on and wait until its node is Ready (30 min limit)",
	api.ActionReimage:  "Evacuate, reinstall the BMM's current runtime, uncordon, restart its VMs (3 h limit)",
	api.ActionReplace:  "After a hardware repair: record new hardware facts, provision, clear Unhealthy (4 h limit)",
	api.ActionCordon:   "Cordon the node; with --evacuate also drain pods and shut down VMs (10 min, +30 with evacuate)",
	api.ActionUncordon: "Uncordon the node and restart the VMs an evacuate stopped (10 min limit)",
}

// replaceFlags are the replace action's parameters as flags.
type replaceFlags struct{ p api.ReplaceParams }

func (r *replaceFlags) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&r.p.BMCCredentials, "bmc-credentials", "", "name of an inventory bmcCredentials entry (a reference, never a secret); default: unchanged")
	f.StringVar(&r.p.BMCMacAddress, "bmc-mac-address", "", "MAC address of the new BMC")
	f.StringVar(&r.p.BootMacAddress, "boot-mac-address", "", "boot (PXE) MAC address; default: unchanged")
	f.StringVar(&r.p.MachineName, "machine-name", "", "OS host name; must be the BMM's node name")
	f.StringVar(&r.p.SerialNumber, "serial-number", "", "serial number of the server; default: unchanged")
	f.StringVar(&r.p.StoragePolicy, "storage-policy", "", "Preserve (keep virtual disks) or DiscardAll (default: wipe them)")
	f.StringVar(&r.p.SafeguardMode, "safeguard-mode", "", "All (default: refuse a healthy BMM that is not cordoned) or None (replace evacuates it)")
}

func (a *app) bmmActionCmd(action string) *cobra.Command {
	var in api.ActionInput
	var rf replaceFlags
	var wait, watching bool
	cmd := &cobra.Command{
		Use:   action + " --cluster C --bmm NAME",
		Short: actionShort[action],
		RunE: func(cmd *cobra.Command, _ []string) error {
			in.Action = action
			in.ReplaceParams = rf.p
			if in.Force {
				in.By = operator()
			}
			return a.withClient(cmd, 0, in.Validate(), func(ctx context.Context, c client.Client) error {
				run, err := startAction(ctx, c, in)
				if err != nil {
					return err
				}
				fmt.Fprintln(cmd.OutOrStdout(), run.GetID())
				if watching {
					// Progress first, then the same ending (and exit code) as --wait.
					if err := watch(ctx, cmd.OutOrStdout(), newActionWatch(c, in, run).poll); err != nil {
						return err
					}
				} else if !wait {
					fmt.Fprintf(cmd.ErrOrStderr(), "started %s (follow: starter bmm %s ... --watch, or temporal workflow show -w %s)\n",
						api.ActionSummary(action, in.BMM, in.Cluster), action, run.GetID())
					return nil
				}
				res, err := waitAction(ctx, run)
				if err != nil {
					return err
				}
				fmt.Fprintln(cmd.OutOrStdout(), res.Message)
				return nil
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&in.Cluster, "cluster", "", "cluster name")
	f.StringVar(&in.BMM, "bmm", "", "bare-metal machine name")
	f.BoolVar(&wait, "wait", false, "wait for the action to end: exit 0 on success, 2 on failure")
	f.BoolVar(&watching, "watch", false, "like --wait, showing the step in progress and the BMM's state as it goes")
	switch action {
	case api.ActionPowerOff:
		f.BoolVar(&in.SkipShutdown, "skip-shutdown", false, "force the power off at once, without a graceful OS shutdown")
	case api.ActionCordon:
		f.BoolVar(&in.Evacuate, "evacuate", false, "also drain tenant pods and shut down tenant VMs")
	case api.ActionReplace:
		rf.register(cmd)
		f.BoolVar(&in.ApplyFirmware, "apply-firmware", false, "a server below its runtime's firmware baseline gets it applied first, in this action (default: the replace is refused; docs/firmware.md)")
	}
	forceFlags(cmd, &in.Force, &in.Reason)
	f.DurationVar(&in.TimeLimit, "time-limit", 0, "shorten the action's time limit (default: docs/behaviour.md#time-limits, e.g. reimage 3h)")
	if action == api.ActionCordon || action == api.ActionReimage || action == api.ActionReplace {
		f.DurationVar(&in.EvacuateTimeout, "evacuate-timeout", 0, "bound of the evacuation (drain 2/3, VM shutdown 1/3), then proceed (default 30m)")
	}
	return cmd
}
