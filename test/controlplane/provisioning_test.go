package controlplane_test

import (
	"slices"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/remediate"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/rackroll/rackroll/worker/wiring"
	"github.com/stretchr/testify/require"
)

// (c) Initial deployment: a compute server whose node never comes Ready
// after registration (the lab's kubelet keeps it NotReady from the start)
// is remediated once provisioningTimeout has passed since the ledger
// recorded its provisioning start; every other BMM, seen Ready by the
// monitor's first rounds, has its start cleared and is left alone.
func TestE2ERemediationProvisioningTimeout(t *testing.T) {
	t.Parallel()
	const c = "rack2-c2"
	env := e2e.Start(t, "../../examples/two-rack.yaml", e2e.Options{
		Mutate: func(inv *model.Inventory) {
			e2e.FastRemediation(inv)
			inv.Remediation.ProvisioningTimeout = model.Duration(8 * time.Second)
			inv.Lab = []byte(`{"etcdDetached": true, "faults": [{"bmm": "` + c + `", "kind": "node-not-ready"}]}`)
		},
		// The lab creates every node Ready, then applies the fault: the
		// cluster is registered once the node shows NotReady, as a server
		// still installing at initial deployment.
		StartWorker: func(env *e2e.Env) {
			env.Eventually(30*time.Second, c+" NotReady", func() bool {
				evs, err := events.ReadFile(env.EventsPath)
				return err == nil && slices.ContainsFunc(evs, func(e events.Event) bool { return e.BMM == c && e.Kind == events.NodeNotReady })
			})
			env.StartWorker(&wiring.Options{PollInterval: 200 * time.Millisecond, BMCPowerOnTimeout: 15 * time.Second})
		},
	})
	env.StartMonitor()
	registered := env.BMM(c).ProvisioningSince
	require.NotNil(t, registered, "registration starts the provisioning clock")

	ctx := env.Context(2 * time.Minute)
	env.Eventually(time.Minute, "the remediation of "+c+" started", func() bool {
		return env.RemediationStarted(ctx, c)
	})
	// The node comes up now: the reprovision the trigger started recovers it.
	require.NoError(t, env.Lab.SetFault(c, "node-not-ready", 0, true))
	rs := env.Remediation(ctx, c)
	require.Equal(t, remediate.ProvisioningTimeout, rs.Trigger)
	require.True(t, registered.Equal(rs.Since), "counted from registration (%v), not from when the monitor first looked (%v)", registered, rs.Since)
	require.GreaterOrEqual(t, rs.StartedAt.Sub(*registered), 8*time.Second)
	require.Equal(t, "recovered by reprovision", rs.Outcome)

	st := env.State()
	for _, b := range st.Cluster.BMMs {
		require.Nil(t, b.ProvisioningSince, "%s: provisioning over once its node was seen Ready", b.Name)
		if b.Name != c {
			require.False(t, env.RemediationStarted(ctx, b.Name), "%s was Ready: not remediated", b.Name)
		}
	}
}
