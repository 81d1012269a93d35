package api

import (
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/model/modeltest"
	"github.com/stretchr/testify/require"
)

func TestControlPlaneAndUnhealthyLines(t *testing.T) {
	st := ClusterState{Cluster: modeltest.Cluster("rack1-m1:management/a", "rack1-m2:kcp-spare", "rack2-m1:kcp", "rack2-m2:management/b!")}
	require.Equal(t, "control plane: 1 active KCP of 1 (rack2-m1); spare rack1-m2", st.ControlPlaneLine())
	require.Equal(t, "marked Unhealthy (only a replace clears the mark): rack2-m2", st.UnhealthyLine())

	b, _ := st.Cluster.BMM("rack2-m1")
	b.Unhealthy = &model.UnhealthyMark{Reason: "kcp-spare remediation gave up after reboot", Since: time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC), By: "remediate:site-a:rack2-m1"}
	require.Equal(t, "control plane: 0 active KCP of 1 (none); spare rack1-m2", st.ControlPlaneLine(), "a marked KCP does not serve")
	require.Contains(t, st.UnhealthyLine(), "rack2-m1 (since 2026-11-25T00:00:00Z by remediate:site-a:rack2-m1: kcp-spare remediation gave up after reboot)")
	require.Empty(t, ClusterState{Cluster: modeltest.Cluster("rack1-m1:kcp")}.UnhealthyLine())
}
