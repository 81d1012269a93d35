package main

import (
	"context"
	"fmt"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/output"
	"github.com/spf13/cobra"
	"go.temporal.io/sdk/client"
)

// remediationRow is one line of `remediation list`: a remediation in
// flight or recently closed, a due BMM the monitor refused, or a trigger
// clock still running.
type remediationRow struct {
	BMM     string    `json:"bmm"`
	Role    string    `json:"role,omitempty"`
	Trigger string    `json:"trigger"`
	Since   time.Time `json:"since"`
	State   string    `json:"state"` // clock, due, refused, running, closed
	Step    string    `json:"step,omitempty"`
	Outcome string    `json:"outcome,omitempty"`
}

type remediationList struct {
	Monitor api.MonitorStatus `json:"monitor"`
	Rows    []remediationRow  `json:"remediations"`
}

func (a *app) remediationListCmd() *cobra.Command {
	var cluster, bmm, format string
	check := func() error { return required(flag{"cluster", cluster}) }
	cmd := a.clientCmd("list --cluster C [--bmm NAME]", "List trigger clocks, refusals and remediations (from the health monitor)",
		30*time.Second, check, func(ctx context.Context, cmd *cobra.Command, c client.Client) error {
			ms, err := monitorStatus(ctx, c, cluster)
			if err != nil {
				return err
			}
			l := remediationList{Monitor: ms, Rows: listRows(ctx, c, cluster, ms, bmm)}
			if err := output.Write(cmd.OutOrStdout(), format, l, func() output.Table {
				t := output.Table{Header: []string{"bmm", "role", "trigger", "since", "state", "step", "outcome"}}
				for _, r := range l.Rows {
					t.Rows = append(t.Rows, []string{r.BMM, dash(r.Role), r.Trigger, r.Since.UTC().Format(time.RFC3339), r.State, dash(r.Step), dash(r.Outcome)})
				}
				return t
			}); err != nil {
				return err
			}
			if format == "table" {
				fmt.Fprintln(cmd.OutOrStdout(), ms.Summary())
			}
			return nil
		})
	cmd.Flags().StringVar(&cluster, "cluster", "", "cluster name")
	cmd.Flags().StringVar(&bmm, "bmm", "", "only this BMM")
	outputFlag(cmd, &format)
	return cmd
}

// listRows joins the monitor's view with each running remediation's own
// status (its current step).
func listRows(ctx context.Context, c client.Client, cluster string, ms api.MonitorStatus, bmm string) []remediationRow {
	var rows []remediationRow
	add := func(r remediationRow) {
		if bmm == "" || r.BMM == bmm {
			rows = append(rows, r)
		}
	}
	busy := map[string]bool{}
	for _, a := range ms.Active {
		busy[a.BMM] = true
		r := remediationRow{BMM: a.BMM, Role: string(a.Role), Trigger: string(a.Trigger), Since: a.Since, State: "running"}
		if st, err := remediationStatus(ctx, c, cluster, a.BMM); err == nil {
			r.Step, r.Outcome = string(st.Step), st.Outcome
		}
		add(r)
	}
	for _, f := range ms.Refusals {
		if busy[f.BMM] {
			continue // "already being remediated": its running row says more
		}
		busy[f.BMM] = true
		add(remediationRow{BMM: f.BMM, Role: string(f.Role), Trigger: string(f.Trigger), Since: f.Since, State: "refused", Outcome: f.Reason})
	}
	for _, k := range ms.Clocks {
		if busy[k.BMM] {
			continue
		}
		state := "clock"
		if k.Due {
			state = "due"
		}
		add(remediationRow{BMM: k.BMM, Trigger: string(k.Trigger), Since: k.Since, State: state,
			Outcome: fmt.Sprintf("held %s of %s", k.Held.Round(time.Second), k.Threshold)})
	}
	for i := len(ms.Recent) - 1; i >= 0; i-- {
		x := ms.Recent[i]
		add(remediationRow{BMM: x.BMM, Role: string(x.Role), Trigger: string(x.Trigger), Since: x.Since, State: "closed", Outcome: x.Outcome})
	}
	return rows
}

func remediationStatus(ctx context.Context, c client.Client, cluster, bmm string) (api.RemediationStatus, error) {
	return query[api.RemediationStatus](ctx, c, api.RemediationID(cluster, bmm), api.QueryStatus, func(err error) error {
		return fmt.Errorf("no remediation of %s in cluster %s: %w", bmm, cluster, err)
	})
}

func (a *app) remediationShowCmd() *cobra.Command {
	var cluster, bmm, format string
	var watching bool
	check := func() error { return required(flag{"cluster", cluster}, flag{"bmm", bmm}) }
	cmd := a.clientCmd("show --cluster C --bmm NAME", "Show the latest remediation of one BMM step by step",
		0, check, func(ctx context.Context, cmd *cobra.Command, c client.Client) error {
			if watching {
				return watchRemediation(ctx, c, cmd.OutOrStdout(), cmd.ErrOrStderr(), format, cluster, bmm)
			}
			ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			defer cancel()
			st, err := remediationStatus(ctx, c, cluster, bmm)
			if err != nil {
				return err
			}
			return writeRemediation(cmd.OutOrStdout(), format, st)
		})
	cmd.Flags().StringVar(&cluster, "cluster", "", "cluster name")
	cmd.Flags().StringVar(&bmm, "bmm", "", "BMM name")
	cmd.Flags().BoolVar(&watching, "watch", false, "follow the remediation until it ends: exit 0 recovered, 1 refused, 2 not recovered")
	outputFlag(cmd, &format)
	return cmd
}
