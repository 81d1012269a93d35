package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/model/modeltest"
	"github.com/rackroll/rackroll/internal/placement"
	"github.com/stretchr/testify/require"
)

// The plan of growing two racks to three, as `register --plan` prints it:
// the joins with their roles, each change as a numbered step, the summary.
func TestWriteReplan(t *testing.T) {
	ledger := modeltest.Cluster("rack1-m1:kcp", "rack1-m2:management/a", "rack2-m1:kcp-spare", "rack2-m2:management/b", "rack2-c1:compute").BMMs
	p, err := placement.PlanRegistration(ledger, modeltest.Inventory("rack1: m1 m2", "rack2: m1 m2", "rack3: m1 c1"))
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, writeReplan(&out, "table", "site-a", p))
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 7, out.String())
	require.Regexp(t, `^join +rack3-c1 +rack3 +compute `, lines[1])
	require.Regexp(t, `^join +rack3-m1 +rack3 +management \(group [ab]\) `, lines[2])
	require.Regexp(t, `^leave +rack2-c1 +rack2 +compute `, lines[3])
	require.Regexp(t, `^change 1/2 +rack2-m2 +rack2 +management -> kcp +one control-plane server`, lines[4])
	require.Regexp(t, `^change 2/2 +rack3-m1 +rack3 +management -> kcp `, lines[5])
	require.Equal(t, "cluster site-a: 3 racks, the table wants 3 active KCPs and 1 spare; 2 joins, 1 leaves, 2 role changes", lines[6])

	var pending bytes.Buffer
	pendingChanges(&pending, "site-a", p)
	require.Contains(t, pending.String(), "2 control-plane role changes are pending")
	require.Contains(t, pending.String(), "`starter cluster replace-roles --cluster site-a`")

	// Refusals print as rows, and JSON carries the whole plan.
	p, err = placement.PlanRegistration(ledger, modeltest.Inventory("rack1: m1 m2"))
	require.NoError(t, err)
	out.Reset()
	require.NoError(t, writeReplan(&out, "table", "site-a", p))
	require.Regexp(t, `(?m)^refused +- +- +- +1 racks need 3 active KCPs, only 2 can be placed.*the spare rack2-m1 of rack rack2`, out.String())
	out.Reset()
	require.NoError(t, writeReplan(&out, "json", "site-a", p))
	var back placement.Replan
	require.NoError(t, json.Unmarshal(out.Bytes(), &back))
	require.Equal(t, p, back)
}

// `cluster show` says when the roles are off the table, and how to fix it.
func TestPlacementLine(t *testing.T) {
	atRest := api.ClusterState{Cluster: modeltest.Cluster("rack1-m1:kcp", "rack1-m2:management/a", "rack2-m1:kcp-spare")}
	require.Empty(t, placementLine(atRest))

	grown := api.ClusterState{Cluster: modeltest.Cluster("rack1-m1:kcp", "rack1-m2:management/a", "rack2-m1:kcp-spare",
		"rack2-m2:management/b", "rack3-m1:management/a")}
	require.Equal(t, "placement: the roles are not the table for 3 racks: 2 control-plane role changes pending, "+
		"first rack2-m2 (rack2): management -> kcp (`starter cluster replace-roles --cluster site-a`)", placementLine(grown))

	short := api.ClusterState{Cluster: modeltest.Cluster("rack1-m1:kcp", "rack2-m1:kcp-spare!")}
	require.Contains(t, placementLine(short), "placement: the placement table cannot be kept: 2 racks need a spare KCP")
	grown.Cluster.DetailedStatus = model.ClusterUpdating
	require.Empty(t, placementLine(grown), "an upgrade moves roles by its own plan")
}
