package remediation

import (
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/model"
	"github.com/stretchr/testify/require"
)

// The failover's run limit is derived from the table and the remediation
// clocks: the sum of its steps, so a step always ends first.
func TestFailoverRunLimitIsTheSumOfItsSteps(t *testing.T) {
	rem := (*model.RemediationSpec)(nil).WithDefaults()
	d := model.DefaultTimeouts()
	one := failoverRunLimit(d, rem, 1)
	// The spare's provisioning and the failed KCP's, each with its eject
	// and join, and the ladder of the spare had it fallen.
	provision := rem.ReprovisionTimeout.Std() + d.Media.Std() + d.EtcdJoin.Std()
	require.Greater(t, one, 2*provision+rem.RebootTimeout.Std()+provision)
	require.Greater(t, failoverRunLimit(d, rem, 4), one, "more candidates to fall back to, a longer run")
	require.Equal(t, one, failoverRunLimit(d, rem, 0), "at least one candidate is counted")

	longer := rem
	longer.ReprovisionTimeout = model.Duration(rem.ReprovisionTimeout.Std() + time.Hour)
	require.Equal(t, 3*time.Hour, failoverRunLimit(d, longer, 1)-one, "each of its three provisionings an hour longer")
}

func TestFailoverCandidatesAreSparesAndManagement(t *testing.T) {
	c := model.Cluster{BMMs: []model.BMM{
		{Name: "k", Roles: []model.Role{model.RoleKCP}}, {Name: "s", Roles: []model.Role{model.RoleKCPSpare}},
		{Name: "m1", Roles: []model.Role{model.RoleManagement}}, {Name: "m2", Roles: []model.Role{model.RoleManagement}},
		{Name: "c", Roles: []model.Role{model.RoleCompute}},
	}}
	require.Equal(t, 3, failoverCandidates(c))
}
