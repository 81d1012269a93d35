package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/rackroll/rackroll/activities/bmc"
	"github.com/rackroll/rackroll/activities/kube"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/output"
	"github.com/rackroll/rackroll/internal/sitecheck"
	"github.com/spf13/cobra"
)

func (a *app) siteCmd() *cobra.Command {
	return group("site", "Probe a real site before trusting rackroll with it", a.siteCheckCmd())
}

func (a *app) siteCheckCmd() *cobra.Command {
	var inventory, format string
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "check --inventory site.yaml",
		Short: "Probe every BMC and the Kubernetes API read-only; exit 1 on any blocker",
		Long: `check reads the site inventory and probes, without changing anything (no power
action, no PATCH, no media insert), what rackroll needs: per BMC — reachable,
TLS verified, login, sessions, the System, the virtual CD it would use, the
boot target and boot mode, reset types, graceful shutdown, the BIOS and BMC
versions and where each was read or, when the inventory declares a firmware
baseline for its runtimeVersion, a finding per component against it (a
warning when below or unknown); a BMC that serves without credentials has
its login warned as not checked; Kubernetes —
the API, each BMM's node, its version as the site's version source reads it,
its bootID, and the permissions rackroll needs (by access review). One row
per BMM with ✔/✗ and what to fix; -o json gives every finding.
It needs no Temporal: it runs where the worker would run.`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if inventory == "" {
				return fmt.Errorf("--inventory is required: the site inventory YAML")
			}
			inv, err := model.LoadValid(inventory, checkInventory)
			if err != nil {
				return err
			}
			in := sitecheck.Input{Inventory: inv, ProbeBMC: siteProber(inv, timeout), VersionOf: sitecheck.SourceVersion(inv.Kubernetes.NodeVersion())}
			switch {
			case inv.Kubernetes.Kubeconfig != "":
				in.Kube, in.KubeErr = kube.Kubeconfig(inv.Kubernetes.Kubeconfig).Clientset(cmd.Context())
			case inv.Kubernetes.InCluster:
				// Run where the worker runs: in its pod (kubectl exec … starter site check).
				in.Kube, in.KubeErr = kube.InCluster().Clientset(cmd.Context())
			case inv.Kubernetes.KubeconfigSecretRef != nil:
				in.KubeErr = fmt.Errorf("kubeconfigSecretRef is read by the worker in its cluster; run site check with a kubeconfig file for the site")
			}
			rep := sitecheck.Run(cmd.Context(), in)
			if err := output.Write(cmd.OutOrStdout(), format, rep, func() output.Table { return siteTable(rep) }); err != nil {
				return err
			}
			if n := rep.Blockers(); n > 0 {
				return fmt.Errorf("%d blockers: fix them before running rackroll against %s", n, inv.Cluster)
			}
			if format == "table" {
				fmt.Fprintf(cmd.ErrOrStderr(), "%s: %d BMMs checked, no blockers\n", inv.Cluster, len(rep.BMMs))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&inventory, "inventory", "", "site inventory YAML")
	cmd.Flags().DurationVar(&timeout, "timeout", 30*time.Second, "per-request timeout for BMCs")
	outputFlag(cmd, &format)
	return cmd
}

func siteProber(inv *model.Inventory, timeout time.Duration) sitecheck.BMCProber {
	return func(ctx context.Context, s model.ServerSpec) []sitecheck.Item {
		ep := bmcEndpoint(s.Name, s.BMC, inv.BMCCredentials)
		return bmc.Probe(ctx, ep, bmc.SecretResolver{}, timeout, inv.Images.FirmwareBaseline(inv.RuntimeVersion))
	}
}

// siteTable: the Kubernetes findings first (as rows named "kubernetes"),
// then one row per BMM: ✔ when every check holds, else ✗ and the fixes.
func siteTable(rep sitecheck.Report) output.Table {
	t := output.Table{Header: []string{"bmm", "node", "result", "checked", "to fix"}}
	row := func(name, node string, items []sitecheck.Item) {
		var checked, fixes []string
		mark := "✔"
		for _, it := range items {
			sign := "✔"
			if !it.OK {
				sign = "!"
				if it.Blocker {
					sign, mark = "✗", "✗"
				}
				fixes = append(fixes, it.Check+": "+it.Fix)
			}
			checked = append(checked, sign+" "+it.Check)
		}
		t.Rows = append(t.Rows, []string{name, node, mark, strings.Join(checked, ", "), dash(strings.Join(fixes, "; "))})
	}
	row("(kubernetes)", "-", rep.Kubernetes)
	for _, r := range rep.BMMs {
		row(r.BMM, r.Node, r.Items)
	}
	return t
}
