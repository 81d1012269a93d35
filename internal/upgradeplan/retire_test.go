package upgradeplan

import (
	"testing"

	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/model/modeltest"
	"github.com/stretchr/testify/require"
)

func stepsOf(p Plan) []string {
	var out []string
	for _, s := range p.ControlPlane {
		skip := ""
		if s.Skip {
			skip = " (skip)"
		}
		out = append(out, s.BMM+":"+string(s.Action)+skip)
	}
	return out
}

// Three racks: a KCP per rack, the spare in rack1. The KCP that retires is
// rack1's, so the spare, once joined, and the new spare trade places and
// the KCPs keep a rack each — before the spare joins and after.
func TestTheRetiringKCPIsTheSparesRackMate(t *testing.T) {
	c := modeltest.Cluster("rack1-m1:kcp", "rack1-m2:kcp-spare", "rack2-m1:kcp", "rack3-m1:kcp",
		"rack1-m3:management/a", "rack2-m2:management/b", "rack1-c1:compute", "rack2-c1:compute", "rack3-c1:compute")
	p, err := Build(c, "4.2.0", model.UpdateStrategy{}, false)
	require.NoError(t, err)
	require.Equal(t, []string{"rack1-m2:upgrade-spare", "rack2-m1:swap", "rack3-m1:swap", "rack1-m1:retire"}, stepsOf(p))

	old, err := Build(c, "4.2.0", model.UpdateStrategy{}, false, RetireLastKCP())
	require.NoError(t, err)
	require.Equal(t, []string{"rack1-m2:upgrade-spare", "rack1-m1:swap", "rack2-m1:swap", "rack3-m1:retire"}, stepsOf(old),
		"histories recorded before keep the last KCP's retire")

	// Resumed after the spare joined (on the target, a KCP now): the same
	// rack-mate retires.
	for i := range c.BMMs {
		if c.BMMs[i].Name == "rack1-m2" {
			c.BMMs[i].Roles, c.BMMs[i].RuntimeVersion = []model.Role{model.RoleKCP}, "4.2.0"
		}
	}
	c.DetailedStatus = model.ClusterUpdating
	p, err = Build(c, "4.2.0", model.UpdateStrategy{}, true)
	require.NoError(t, err)
	require.Equal(t, []string{"rack1-m2:swap (skip)", "rack2-m1:swap", "rack3-m1:swap", "rack1-m1:retire"}, stepsOf(p))
}
