package main

import (
	"testing"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/upgradeplan"
	"github.com/stretchr/testify/require"
)

// The plan judges the batch the upgrade drains first in each rack: the
// canary's first wave in its rack, else maxUnavailable servers.
func TestFirstBatches(t *testing.T) {
	var st api.ClusterState
	for _, n := range []string{"r1-c1", "r1-c2", "r1-c3", "r2-c1", "r2-c2", "r2-c3"} {
		st.Cluster.BMMs = append(st.Cluster.BMMs, model.BMM{Name: n, NodeName: "node-" + n})
	}
	p := upgradeplan.Plan{Racks: []upgradeplan.Rack{{Name: "r1", Servers: []string{"r1-c1", "r1-c2", "r1-c3"}, Parallel: 3},
		{Name: "r2", Servers: []string{"r2-c1", "r2-c2", "r2-c3"}, Parallel: 2}},
		Canary: &upgradeplan.Canary{Rack: "r1", Servers: []string{"r1-c2"}}}
	units, nodes := firstBatches(st, p)
	require.Equal(t, []string{"r1", "r2"}, units)
	require.Equal(t, [][]string{{"node-r1-c2"}, {"node-r2-c1", "node-r2-c2"}}, nodes)
}

// The site's kubeconfig is the ledger's unless --kubeconfig says; a
// Secret only the worker reads is said, not guessed.
func TestCapacitySource(t *testing.T) {
	src, why := capacitySource("secret:rackroll/site", "")
	require.Nil(t, src)
	require.Contains(t, why, "rackroll/site")
	require.Contains(t, why, "--kubeconfig")
	for _, tc := range [][2]string{{"/site.kubeconfig", ""}, {"secret:rackroll/site", "/mine"}, {api.KubeconfigInCluster, ""}, {"", ""}} {
		src, why := capacitySource(tc[0], tc[1])
		require.NotNil(t, src, "%v", tc)
		require.Empty(t, why)
	}
	require.Equal(t, []string{"Capacity SHORT: r1: x", "Capacity NOT CHECKED: r2: y"},
		capacityNotes([]api.CapacityCheck{{Unit: "r1", Message: "r1: x"}, {Unit: "r2", NotChecked: true, Message: "r2: y"}}))
}
