package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/output"
	"github.com/rackroll/rackroll/internal/placement"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
)

// ledgerBMMs is the running ledger's BMMs, or nil when the cluster has no
// running ledger (a registration then starts one, placing the inventory
// afresh; a ledger that ended is not what it would merge into).
func ledgerBMMs(ctx context.Context, c client.Client, cluster string) ([]model.BMM, error) {
	d, err := c.DescribeWorkflowExecution(ctx, api.ClusterID(cluster), "")
	var nf *serviceerror.NotFound
	switch {
	case errors.As(err, &nf):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("cluster %s: describe the ledger to plan the registration: %w", cluster, err)
	case d.GetWorkflowExecutionInfo().GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING:
		return nil, nil
	}
	st, err := query[api.ClusterState](ctx, c, api.ClusterID(cluster), api.QueryState, func(err error) error { return err })
	if err != nil {
		return nil, fmt.Errorf("cluster %s: read the ledger to plan the registration: %w", cluster, err)
	}
	return st.Cluster.BMMs, nil
}

// writeReplan prints a registration's plan: who joins and leaves with which
// role, the control-plane role changes one server per step in their order,
// and what is refused.
func writeReplan(w io.Writer, format, cluster string, p placement.Replan) error {
	err := output.Write(w, format, p, func() output.Table {
		t := output.Table{Header: []string{"step", "bmm", "rack", "role", "note"}}
		for _, j := range p.Joins {
			role := string(j.Role)
			if j.ManagementGroup != "" {
				role += " (group " + j.ManagementGroup + ")"
			}
			t.Rows = append(t.Rows, []string{"join", j.Name, j.Rack, role, "-"})
		}
		for _, l := range p.Leaves {
			t.Rows = append(t.Rows, []string{"leave", l.Name, l.Rack, string(l.Role), "-"})
		}
		for i, c := range p.Changes {
			to := string(c.To)
			if c.ManagementGroup != "" {
				to += " (group " + c.ManagementGroup + ")"
			}
			t.Rows = append(t.Rows, []string{fmt.Sprintf("change %d/%d", i+1, len(p.Changes)), c.Name, c.Rack,
				string(c.From) + " -> " + to, "one control-plane server, through the live gate"})
		}
		for _, r := range p.Refusals {
			t.Rows = append(t.Rows, []string{"refused", "-", "-", "-", r})
		}
		return t
	})
	if err != nil || format != "table" {
		return err
	}
	fmt.Fprintf(w, "cluster %s: %d racks, the table wants %d active KCPs and %d spare; %d joins, %d leaves, %d role changes\n",
		cluster, p.Racks, p.Active, p.Spare, len(p.Joins), len(p.Leaves), len(p.Changes))
	return nil
}

// pendingChanges tells the operator, after a registration, how the plan's
// control-plane role changes are made.
func pendingChanges(w io.Writer, cluster string, p placement.Replan) {
	if len(p.Changes) == 0 {
		return
	}
	fmt.Fprintf(w, "%d control-plane role changes are pending (`starter cluster register --inventory FILE --plan` lists them): "+
		"`starter cluster replace-roles --cluster %s` makes them one server at a time through the live control-plane gate\n",
		len(p.Changes), cluster)
}

// placementLine is the roles under `cluster show` when they are not
// the placement table (docs/behaviour.md#placement): the changes pending and how to make them, or why
// the table cannot be reached. Empty when the roles are the table, and
// while the cluster is not Running (an upgrade moves roles by its own plan).
func placementLine(st api.ClusterState) string {
	if st.Cluster.DetailedStatus != model.ClusterRunning {
		return ""
	}
	p, err := placement.PlanRoles(st.Cluster.BMMs)
	if err == nil {
		err = p.Err()
	}
	switch {
	case err != nil:
		return "placement: " + err.Error()
	case len(p.Changes) == 0:
		return ""
	}
	return fmt.Sprintf("placement: the roles are not the table for %d racks: %d control-plane role changes pending, first %s (`starter cluster replace-roles --cluster %s`)",
		p.Racks, len(p.Changes), p.Changes[0], st.Cluster.Name)
}
