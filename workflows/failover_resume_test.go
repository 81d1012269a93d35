package workflows

import (
	"testing"

	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/model/modeltest"
	"github.com/stretchr/testify/require"
)

// What a failover started again finishes of an interrupted one
// (TestPropertyConvergeAfterInterruptions seeds 20261123, 20261151,
// 20261161, 20261180, 20261300, 20261393, 20261469).
func TestResumedFailover(t *testing.T) {
	status := func(c model.Cluster, name, st string) model.Cluster {
		for i := range c.BMMs {
			if c.BMMs[i].Name == name {
				c.BMMs[i].DetailedStatus = st
			}
		}
		return c
	}
	for _, tc := range []struct {
		name     string
		cluster  model.Cluster
		resumed  bool
		newSpare string
	}{
		{"nothing done yet: plan afresh", modeltest.Cluster("rack1-m1:kcp!", "rack2-m1:kcp-spare", "rack1-m2:management/a", "rack2-m2:management/b"), false, ""},
		{"spare promoted, no new spare yet", modeltest.Cluster("rack1-m1:kcp!", "rack2-m1:kcp", "rack1-m2:management/a", "rack2-m2:management/b"), true, "rack1-m2"},
		{"spare promoted, new spare labelled", modeltest.Cluster("rack1-m1:kcp!", "rack2-m1:kcp", "rack1-m2:kcp-spare", "rack2-m2:management/b"), true, ""},
		{"relabelled, reprovision cut short", status(modeltest.Cluster("rack1-m1:management/a", "rack2-m1:kcp", "rack1-m2:kcp-spare", "rack2-m2:management/b"),
			"rack1-m1", model.BMMDeprovisioning), true, ""},
		{"done: a management server that serves", modeltest.Cluster("rack1-m1:management/a", "rack2-m1:kcp", "rack1-m2:kcp-spare", "rack2-m2:management/b"), false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, ok := resumedFailover(tc.cluster, "rack1-m1")
			require.Equal(t, tc.resumed, ok)
			if !ok {
				return
			}
			require.Empty(t, p.Spare, "no second promotion")
			require.Equal(t, tc.newSpare, p.NewSpare)
			require.Equal(t, "rack1-m1", p.Failed)
			require.Equal(t, model.RoleManagement, p.RoleChanges[len(p.RoleChanges)-1].To)
		})
	}
}
