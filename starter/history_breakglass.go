package main

import (
	"context"
	"fmt"
	"sort"

	"github.com/rackroll/rackroll/internal/api"
	"go.temporal.io/sdk/client"
)

// breakGlassRows are the ledger's record of operator overrides as history
// rows: those on bmm and those on the whole cluster (resume); every one
// when bmm is "".
func breakGlassRows(ctx context.Context, c client.Client, cluster, bmm string) ([]historyRow, error) {
	st, err := ledgerState(ctx, c, cluster)
	if err != nil {
		return nil, err
	}
	return actRows(st.BreakGlass, cluster, bmm), nil
}

func actRows(acts []api.BreakGlassAct, cluster, bmm string) []historyRow {
	var rows []historyRow
	for _, a := range acts {
		if bmm != "" && a.BMM != "" && a.BMM != bmm {
			continue
		}
		id := a.Holder
		if id == "" {
			id = api.ClusterID(cluster)
		}
		by := a.By
		if by == "" {
			by = "an unnamed operator"
		}
		rows = append(rows, historyRow{Time: a.Time, Operation: "break-glass " + a.Act, WorkflowID: id, Status: "accepted",
			Result: fmt.Sprintf("%s; reason: %s (by %s)", a.Detail, a.Reason, by), Reason: a.Reason, By: a.By})
	}
	return rows
}

// mergeRows adds the break-glass rows to the workflow rows, by time.
func mergeRows(rows, acts []historyRow) []historyRow {
	out := append(append([]historyRow(nil), rows...), acts...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Time.Before(out[j].Time) })
	return out
}
