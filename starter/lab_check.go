//go:build lab

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/invariants"
	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/output"
	"github.com/spf13/cobra"
)

// labCheckCmd reads a lab event log after a run and reports every broken
// safety rule (internal/invariants). It needs no Temporal server: the log
// and the inventory are the whole input, so it also works on a log kept
// from CI.
func (a *app) labCheckCmd() *cobra.Command {
	var eventsPath, inventory, target, upgrade, format string
	var remediations []string
	var minKCP int
	cmd := &cobra.Command{
		Use:   "check --events events.jsonl [--inventory lab.yaml]",
		Short: "Check a lab event log against the safety rules (exit 2 when one is broken)",
		Long: `check replays a lab event log (starter lab up --events FILE) and lists every
violation of the safety rules: one control-plane server disrupted at a time, the
active KCPs never below their count, one compute rack at a time in natural order,
the storm guard, each remediation ladder step once. --inventory gives the roles
at the start of the log (without it roles come only from node-label events);
--remediation FILE (the output of 'starter remediation show -o json', repeatable)
adds the remediations to check; --upgrade FILE (the output of 'starter upgrade
status -o json') adds the upgrade's racks and management groups with their
outcomes and when the operator continued, for the threshold, pause, systemic
canary and capacity-pause rules.`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if eventsPath == "" {
				return fmt.Errorf("--events is required: the JSON Lines log written by `starter lab up --events FILE`")
			}
			evs, err := events.ReadFile(eventsPath)
			if err != nil {
				return fmt.Errorf("read event log: %w", err)
			}
			site := invariants.Site{TargetVersion: target, ActiveKCP: minKCP}
			if inventory != "" {
				inv, err := model.LoadInventory(inventory)
				if err != nil {
					return err
				}
				if site, err = invariants.SiteFromInventory(inv); err != nil {
					return fmt.Errorf("inventory %s: %w", inventory, err)
				}
				site.TargetVersion, site.ActiveKCP = target, minKCP
			} else {
				fmt.Fprintln(cmd.ErrOrStderr(), "note: no --inventory: roles come only from node-label events, so the control-plane rules see only servers relabelled during the log")
			}
			if minKCP < 0 {
				return fmt.Errorf("--min-active-kcp %d: must be 0 (the site's KCP count) or more", minKCP)
			}
			for _, p := range remediations {
				rs, err := readStatuses[api.RemediationStatus](p, "starter remediation show -o json")
				if err != nil {
					return err
				}
				for _, r := range rs {
					site = invariants.WithRemediation(site, r)
				}
			}
			if upgrade != "" {
				us, err := readStatuses[api.UpgradeStatus](upgrade, "starter upgrade status -o json")
				if err != nil {
					return err
				}
				if len(us) != 1 {
					return fmt.Errorf("--upgrade %s: holds %d upgrade statuses, want one", upgrade, len(us))
				}
				if target != "" && target != us[0].TargetVersion {
					return fmt.Errorf("--target-version %s and --upgrade %s (to %s) disagree: leave out --target-version", target, upgrade, us[0].TargetVersion)
				}
				site = invariants.WithUpgrade(site, us[0])
			}
			vs := invariants.Check(evs, site)
			if vs == nil {
				vs = []invariants.Violation{} // "[]", not "null", for scripts reading -o json|yaml
			}
			if err := output.Write(cmd.OutOrStdout(), format, vs, func() output.Table {
				t := output.Table{Header: []string{"time", "rule", "bmm", "detail"}}
				for _, v := range vs {
					t.Rows = append(t.Rows, []string{v.Time.UTC().Format("15:04:05.000"), v.Rule, v.BMM, v.Detail})
				}
				return t
			}); err != nil {
				return err
			}
			if format == "table" || format == "" {
				fmt.Fprintf(cmd.OutOrStdout(), "%d violations in %d events\n", len(vs), len(evs))
			}
			if len(vs) > 0 {
				return withCode(exitFailed, fmt.Errorf("%d safety rule violations in %s", len(vs), eventsPath))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&eventsPath, "events", "", "event log (JSON Lines) written by `starter lab up --events`")
	cmd.Flags().StringVar(&inventory, "inventory", "", "site inventory: the roles and racks at the start of the log")
	cmd.Flags().StringVar(&target, "target-version", "", "count only reimages to this version as upgrade steps (others are remediations)")
	cmd.Flags().IntVar(&minKCP, "min-active-kcp", 0, "floor of active KCPs (0: the site's count; one less when the log has operator actions on KCPs)")
	cmd.Flags().StringArrayVar(&remediations, "remediation", nil, "remediation status JSON (`starter remediation show -o json`), repeatable")
	cmd.Flags().StringVar(&upgrade, "upgrade", "", "upgrade status JSON (`starter upgrade status -o json`): adds the threshold and pause rules")
	outputFlag(cmd, &format)
	return cmd
}

// readStatuses reads one status (JSON object) or a JSON array of them, as
// the starter command named by from prints it.
func readStatuses[T any](path, from string) ([]T, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	var list []T
	if t := strings.TrimSpace(string(b)); strings.HasPrefix(t, "[") {
		err = json.Unmarshal(b, &list)
	} else {
		var one T
		err = json.Unmarshal(b, &one)
		list = append(list, one)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w (want the JSON of `%s`)", path, err, from)
	}
	return list, nil
}
