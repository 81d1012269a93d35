package controlplane_test

import (
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/keyset"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/stretchr/testify/require"
)

// Issue 49: a failover that has to provision its spare (retired as an
// upgrade leaves it: no node, no OS users) reinstalls it; once the spare
// serves as the KCP, its node holds the BMM keysets again, and the
// keyset's outcome on it is applied.
func TestE2EFailoverReestablishesKeysOnTheProvisionedSpare(t *testing.T) {
	t.Parallel()
	env := e2e.Start(t, "../../examples/two-rack.yaml", e2e.Options{Mutate: e2e.FastRemediation})
	const kcp, spare = "rack1-mgmt1", "rack2-mgmt1"
	env.KeysOnEveryNode(env.Context(3 * time.Minute))
	retireSpare(t, env, spare)
	env.KillServer(kcp)
	env.StartMonitor()

	_, fs := env.FailedOver(env.Context(5*time.Minute), kcp)
	require.Equal(t, spare, fs.Plan.Spare, "the spare was provisioned and promoted")
	require.Equal(t, model.RoleKCP, env.BMM(spare).Roles[0])
	env.Eventually(2*time.Minute, "both users on the promoted spare, its outcome applied", func() bool {
		k, _ := keyset.Find(env.State().Keysets, "oncall")
		return env.HoldBoth([]string{spare}) && keyset.OutcomesFor(k, []string{spare})[0].State == keyset.Applied
	})
}
