package actions_test

import (
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/invariants"
	"github.com/rackroll/rackroll/internal/keyset"
	"github.com/rackroll/rackroll/internal/lab"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
)

// Issue 49: a Replace reinstalls the server's OS, and its users go with
// it (the lab's node forgets them). A nodes run that reaches the server
// while it is being reinstalled records it pending, saying so; once the
// Replace has it back in service, its node holds the BMM keysets again
// and its outcome is applied.
func TestE2EReplaceReestablishesKeys(t *testing.T) {
	t.Parallel()
	const target = "rack1-c1"
	timings := lab.FastTimings()
	timings.Reimage = model.Duration(6 * time.Second) // a reinstall long enough to be seen
	env := e2e.Start(t, "../../examples/two-rack.yaml", e2e.Options{Timings: timings,
		Mutate: func(inv *model.Inventory) { e2e.KeepComputes(inv, 2, nil) }})
	ctx := env.Context(8 * time.Minute)
	env.KeysOnEveryNode(ctx)

	run := env.StartAction(ctx, 1, api.ActionInput{BMM: target, Action: api.ActionReplace,
		ReplaceParams: api.ReplaceParams{SafeguardMode: api.SafeguardNone}, EvacuateTimeout: 6 * time.Second})
	env.Eventually(2*time.Minute, target+" being reinstalled", func() bool {
		st := env.State()
		b, ok := st.Cluster.BMM(target)
		return ok && b.Reinstalling()
	})
	// The operator applies the set meanwhile (`starter keyset apply`).
	id := api.KeysetNodesID(env.Cluster)
	_, err := env.Client.SignalWithStartWorkflow(ctx, id, api.SignalKeysetChanged, nil, client.StartWorkflowOptions{
		ID: id, TaskQueue: api.TaskQueue, WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
	}, api.KeysetWorkflowName, api.KeysetInput{Cluster: env.Cluster, Nodes: true})
	require.NoError(t, err)
	outcome := func() keyset.Outcome {
		k, _ := keyset.Find(env.State().Keysets, "oncall")
		return keyset.OutcomesFor(k, []string{target})[0]
	}
	env.Eventually(time.Minute, target+" pending while reinstalled", func() bool {
		o := outcome()
		return o.State == keyset.Pending && strings.Contains(o.Reason, "reinstalling")
	})

	var res api.ActionResult
	require.NoError(t, run.Get(ctx, &res))
	require.Equal(t, 1, env.Lab.ReimageCounts()[target], "reinstalled once")
	env.Eventually(2*time.Minute, "both users back on "+target+", its outcome applied", func() bool {
		return env.HoldBoth([]string{target}) && outcome().State == keyset.Applied
	})
	site, err := invariants.SiteFromInventory(env.Inventory)
	require.NoError(t, err)
	require.Empty(t, invariants.Check(env.Events(), site), "starter lab check: violations")
}
