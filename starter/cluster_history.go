package main

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/output"
	"github.com/rackroll/rackroll/internal/temporalerr"
	"github.com/spf13/cobra"
	enumspb "go.temporal.io/api/enums/v1"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
)

// historyRow is one operation that touched a BMM (`cluster history`).
type historyRow struct {
	Time       time.Time  `json:"time"`
	Closed     *time.Time `json:"closeTime,omitempty"`
	Operation  string     `json:"operation"`
	WorkflowID string     `json:"workflowId"`
	RunID      string     `json:"runId"`
	Status     string     `json:"status"`
	Result     string     `json:"result,omitempty"`
	// Parent is the workflow that started this one (a server upgrade's
	// rack, a rack's runtime upgrade).
	Parent string `json:"parent,omitempty"`
	// Reason and By are a break-glass act's (history_breakglass.go).
	Reason string `json:"reason,omitempty"`
	By     string `json:"by,omitempty"`
}

func (a *app) clusterHistoryCmd() *cobra.Command {
	var cluster, bmm, format string
	check := func() error { return required(flag{"cluster", cluster}) }
	cmd := a.clientCmd("history --cluster C [--bmm NAME]", "List every operation that touched a BMM: actions, upgrades (with the upgrade they belong to), remediations, troubleshooting, break-glass acts; without --bmm, the cluster's break-glass acts",
		time.Minute, check, func(ctx context.Context, cmd *cobra.Command, c client.Client) error {
			var rows []historyRow
			if bmm != "" {
				var err error
				if rows, err = bmmHistory(ctx, c, cluster, bmm); err != nil {
					return err
				}
			}
			acts, err := breakGlassRows(ctx, c, cluster, bmm)
			switch {
			case err != nil && bmm == "":
				return err
			case err != nil: // the workflows' rows still answer
				fmt.Fprintf(cmd.ErrOrStderr(), "warning: break-glass acts not shown: %v\n", err)
			}
			rows = mergeRows(rows, acts)
			return output.Write(cmd.OutOrStdout(), format, rows, func() output.Table {
				t := output.Table{Header: []string{"time", "operation", "workflow id", "status", "result"}}
				for _, r := range rows {
					t.Rows = append(t.Rows, []string{r.Time.UTC().Format(time.RFC3339), r.Operation, r.WorkflowID, r.Status, dash(r.Result)})
				}
				return t
			})
		})
	cmd.Flags().StringVar(&cluster, "cluster", "", "cluster name")
	cmd.Flags().StringVar(&bmm, "bmm", "", "BMM name (without it: the cluster's break-glass acts)")
	outputFlag(cmd, &format)
	return cmd
}

// bmmHistoryQuery finds a BMM's workflows by id (docs/design.md#the-workflows-and-their-ids), not by
// search attribute: child workflows (ServerUpgradeWorkflow) and the
// monitor's remediations carry no RackrollCluster, and every id names its
// cluster. Exact ids, and "action:C:B:" with its colon, so rack1-c1 never
// matches rack1-c10. The dev server's SQLite visibility supports both.
func bmmHistoryQuery(cluster, bmm string) string {
	q := func(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }
	return fmt.Sprintf("WorkflowId = %s OR WorkflowId = %s OR WorkflowId = %s OR WorkflowId STARTS_WITH %s",
		q(api.ServerUpgradeID(cluster, bmm)), q(api.RemediationID(cluster, bmm)), q(api.TroubleshootID(cluster, bmm)),
		q("action:"+cluster+":"+bmm+":"))
}

func bmmHistory(ctx context.Context, c client.Client, cluster, bmm string) ([]historyRow, error) {
	infos, err := listAll(ctx, c, bmmHistoryQuery(cluster, bmm))
	if err != nil {
		return nil, err
	}
	// For upgrades, the rack upgrade and runtime upgrade they ran under.
	seen := map[string]bool{}
	for _, in := range infos {
		seen[in.GetExecution().GetRunId()] = true
	}
	for i := 0; i < len(infos); i++ {
		p := infos[i].GetParentExecution()
		if p == nil || seen[p.GetRunId()] {
			continue
		}
		seen[p.GetRunId()] = true
		d, err := c.DescribeWorkflowExecution(ctx, p.GetWorkflowId(), p.GetRunId())
		if err != nil {
			return nil, fmt.Errorf("describe %s, parent of %s: %w", p.GetWorkflowId(), infos[i].GetExecution().GetWorkflowId(), err)
		}
		infos = append(infos, d.GetWorkflowExecutionInfo())
	}
	rows := make([]historyRow, 0, len(infos))
	for _, in := range infos {
		rows = append(rows, historyRowOf(ctx, c, in))
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].Time.Before(rows[j].Time) })
	return rows, nil
}

func listAll(ctx context.Context, c client.Client, query string) ([]*workflowpb.WorkflowExecutionInfo, error) {
	var out []*workflowpb.WorkflowExecutionInfo
	var token []byte
	for {
		resp, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Query: query, NextPageToken: token})
		if err != nil {
			return nil, fmt.Errorf("list workflows (%s): %w", query, err)
		}
		out = append(out, resp.GetExecutions()...)
		if token = resp.GetNextPageToken(); len(token) == 0 {
			return out, nil
		}
	}
}

func historyRowOf(ctx context.Context, c client.Client, in *workflowpb.WorkflowExecutionInfo) historyRow {
	r := historyRow{Time: in.GetStartTime().AsTime(), WorkflowID: in.GetExecution().GetWorkflowId(), RunID: in.GetExecution().GetRunId(),
		Operation: operationOf(in), Status: statusName(in.GetStatus()), Parent: in.GetParentExecution().GetWorkflowId()}
	if in.GetCloseTime() != nil {
		t := in.GetCloseTime().AsTime()
		r.Closed = &t
	}
	if in.GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		r.Result = resultSummary(ctx, c, r.WorkflowID, r.RunID)
	}
	if r.Parent != "" {
		r.Result = strings.TrimSpace(r.Result + " (in " + r.Parent + ")")
	}
	return r
}

// operationOf names what the workflow did: the action for a BMM action
// (its RackrollOperation, set by the starter), else the workflow type.
func operationOf(in *workflowpb.WorkflowExecutionInfo) string {
	if p := in.GetSearchAttributes().GetIndexedFields()[api.SearchAttrOperation]; p != nil {
		var op string
		if converter.GetDefaultDataConverter().FromPayload(p, &op) == nil && op != "" &&
			in.GetType().GetName() == api.BMMActionWorkflowName {
			return op
		}
	}
	switch in.GetType().GetName() {
	case api.ServerUpgradeWorkflowName:
		return "upgrade"
	case api.RackUpgradeWorkflowName:
		return "rack-upgrade"
	case api.RuntimeUpgradeWorkflowName:
		return "runtime-upgrade"
	case api.BMMActionWorkflowName:
		return "action"
	case api.RemediationWorkflowName:
		return "remediation"
	case api.TroubleshootWorkflowName:
		return "troubleshoot"
	case api.KeysetWorkflowName:
		return "keyset"
	}
	return in.GetType().GetName()
}

func statusName(s enumspb.WorkflowExecutionStatus) string {
	return strings.ToLower(s.String()) // running, completed, failed, …
}

// resultSummary is the one line an operator wants from a closed workflow's
// result: its message, outcome or error, whatever its type calls it.
func resultSummary(ctx context.Context, c client.Client, id, runID string) string {
	var res map[string]any
	if err := c.GetWorkflow(ctx, id, runID).Get(ctx, &res); err != nil {
		return temporalerr.Message(err)
	}
	for _, k := range []string{"message", "outcome", "error", "detailedStatusMessage"} {
		if s, ok := res[k].(string); ok && s != "" {
			return s
		}
	}
	if ok, isBool := res["succeeded"].(bool); isBool && ok {
		if v, _ := res["runtimeVersion"].(string); v != "" {
			return "upgraded to " + v
		}
		return "succeeded"
	}
	if n, isNum := res["succeeded"].(float64); isNum {
		return fmt.Sprintf("%v succeeded, %v failed", n, res["failed"])
	}
	return ""
}
