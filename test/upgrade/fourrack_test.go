package upgrade_test

import (
	"context"
	"testing"
	"time"

	"github.com/rackroll/rackroll/activities/kube"
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/invariants"
	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	sdkpb "go.temporal.io/api/sdk/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
)

// End to end on the dev server against the lab: a full upgrade of
// examples/four-rack.yaml with the default inventory on stock kubelets,
// the lab's default (issue 34): labels from --node-labels are applied at
// registration only, so the reimaged nodes keep the runtime-version label
// of their first install and show the new runtime only in osImage, which
// rackroll reads by default. Beside it, a smaller site runs the lab's
// relabelling agent with the label as the site's version source. Both
// reach the target with nothing for `starter lab check` to report. The
// four-rack site holds a BMM keyset of two users on every node before the
// upgrade, and on every reinstalled one once it has completed. (How
// long each takes is the critical-path benchmark's to say, not a test's.)
func TestE2EFullUpgradeFourRack(t *testing.T) {
	t.Parallel()
	// One after the other in this test's slot: parallel subtests queue
	// behind every test of the package, and this one, the longest, ended
	// the package two minutes after the rest (make test-profile on 7c10990).
	t.Run("stock-kubelets", upgradeStockFourRack)
	t.Run("relabelling-agent", upgradeRelabelled)
}

// upgradeRelabelled upgrades a two-rack lab whose nodes run the
// relabelling agent, the version read from the label as the inventory
// declares.
func upgradeRelabelled(t *testing.T) {
	env := e2e.Start(t, "../../examples/two-rack.yaml", e2e.Options{Mutate: func(inv *model.Inventory) {
		inv.Kubernetes.VersionLabel = model.LabelRuntimeVersion
		inv.Lab = []byte(`{"nodeAgent": "relabel"}`)
	}})
	require.Equal(t, model.NodeVersionSource{Label: model.LabelRuntimeVersion}, env.State().NodeVersion, "the site's source reaches the ledger")
	ctx := env.Context(10 * time.Minute)
	st := env.Upgrade(ctx, "4.2.0")
	retired := requireAtTarget(t, env, st)
	for _, n := range nodesOf(ctx, t, env, retired) {
		require.Equal(t, "4.2.0", n.Labels[model.LabelRuntimeVersion], "%s: the agent relabelled it", n.Node)
	}
}

// requireAtTarget checks that every server but the retired KCP (returned)
// runs 4.2.0, uncordoned, and that `starter lab check` (invariants.Check
// on the lab's log and the upgrade's status) finds no broken rule.
func requireAtTarget(t *testing.T, env *e2e.Env, st api.UpgradeStatus) string {
	t.Helper()
	cs := env.State()
	require.Equal(t, "4.2.0", cs.Cluster.RuntimeVersion)
	require.Empty(t, cs.Leases)
	var retired string
	for _, b := range cs.Cluster.BMMs {
		if b.HasRole(model.RoleKCPSpare) {
			retired = b.Name
			require.Equal(t, model.BMMAvailable, b.DetailedStatus)
			continue
		}
		require.Equal(t, "4.2.0", b.RuntimeVersion, b.Name)
		require.Equal(t, model.Uncordoned, b.CordonStatus, b.Name)
	}
	require.NotEmpty(t, retired)
	site, err := invariants.SiteFromInventory(env.Inventory)
	require.NoError(t, err)
	require.Empty(t, invariants.Check(env.Events(), invariants.WithUpgrade(site, st)), "starter lab check: violations after the upgrade")
	return retired
}

// nodesOf reads every reimaged node (all but the retired KCP's).
func nodesOf(ctx context.Context, t *testing.T, env *e2e.Env, retired string) []kube.NodeStatus {
	t.Helper()
	var names []string
	for _, b := range env.State().Cluster.BMMs {
		if b.Name != retired {
			names = append(names, b.NodeName)
		}
	}
	ns, err := env.Kube().ObserveNodes(ctx, names, model.NodeVersionSource{})
	require.NoError(t, err)
	return ns
}

// upgradeStockFourRack is the upgrade on stock kubelets with the default
// inventory, with the checks of the upgrade's order.
func upgradeStockFourRack(t *testing.T) {
	env := e2e.Start(t, "../../examples/four-rack.yaml", e2e.Options{})
	require.Zero(t, env.State().NodeVersion, "the default inventory: the default version source")
	ctx := env.Context(10 * time.Minute)
	env.KeysOnEveryNode(ctx) // issue 37: re-established once the upgrade completes
	failed := probeAPI(t, env, 200*time.Millisecond)
	st := env.Upgrade(ctx, "4.2.0")
	// Issue 14 (b): the API answered throughout; etcd's members are the
	// three active KCPs (the retired one's member removed).
	require.Empty(t, failed(), "reads of the API that failed during the upgrade")
	env.RequireMembersAreActiveKCPs(ctx)
	env.RecordHistories(api.UpgradeID(env.Cluster), api.RackUpgradeID(env.Cluster, "rack2"),
		api.ServerUpgradeID(env.Cluster, "rack2-c3"), api.ClusterID(env.Cluster))

	retired := requireAtTarget(t, env, st)
	// The kubelets were stock: the label is still the first install's.
	for _, n := range nodesOf(ctx, t, env, retired) {
		require.Equal(t, "4.1.2", n.Labels[model.LabelRuntimeVersion], "%s: nothing relabelled it", n.Node)
		require.Equal(t, "rackroll 4.2.0 (lab)", n.OSImage, n.Node)
		require.Equal(t, "4.2.0", n.RuntimeVersion, n.Node)
	}
	cs := env.State()
	counts := env.Lab.ReimageCounts()
	for name, n := range counts {
		if name == retired {
			require.Equal(t, 0, n, "the retired KCP is not reimaged")
			continue
		}
		require.Equal(t, 1, n, "%s reimaged exactly once", name)
	}

	evs := env.Events()
	requireKeysReestablished(t, env, st, evs)
	role := map[string]model.Role{}
	rack := map[string]string{}
	for _, a := range st.Plan.ControlPlane {
		role[a.BMM] = model.RoleKCP
	}
	for _, b := range cs.Cluster.BMMs {
		rack[b.Name] = b.Rack
		if _, ok := role[b.Name]; !ok {
			role[b.Name] = b.Roles[0]
		}
	}
	// Reimage windows from the event log.
	var order []string
	inFlight := map[string]bool{}
	cpOut := 0
	for _, e := range evs {
		switch e.Kind {
		case events.ReimageStart:
			order = append(order, e.BMM)
			inFlight[e.BMM] = true
			if role[e.BMM] == model.RoleKCP {
				cpOut++
				require.LessOrEqual(t, cpOut, 1, "two control-plane servers reimaging at once at %v", e.Time)
			}
			if role[e.BMM] == model.RoleCompute {
				for other := range inFlight {
					if role[other] == model.RoleCompute {
						require.Equal(t, rack[e.BMM], rack[other], "servers of two racks in flight: %s and %s", e.BMM, other)
					}
				}
			}
		case events.ReimageDone, events.ReimageFailed:
			delete(inFlight, e.BMM)
			if role[e.BMM] == model.RoleKCP {
				cpOut--
			}
		}
	}
	var kcpOrder []string
	for _, s := range st.Plan.ControlPlane {
		if s.Action != "retire" {
			kcpOrder = append(kcpOrder, s.BMM)
		}
	}
	require.Equal(t, kcpOrder, order[:len(kcpOrder)], "KCP order: spare first, then the active KCPs")
	var racks []string
	for _, b := range order {
		if role[b] == model.RoleCompute && (len(racks) == 0 || racks[len(racks)-1] != rack[b]) {
			racks = append(racks, rack[b])
		}
	}
	require.Equal(t, []string{"rack1", "rack2", "rack3", "rack4"}, racks, "racks in natural order, each once")
	// Management: group a's servers all start before group b's.
	lastA, firstB := -1, len(order)
	for i, b := range order {
		if role[b] != model.RoleManagement {
			continue
		}
		bm, _ := cs.Cluster.BMM(b)
		if bm.ManagementGroup == "a" {
			lastA = i
		} else if i < firstB {
			firstB = i
		}
	}
	require.Less(t, lastA, firstB, "management group a before group b")

	// The UI's Current Details (the metadata query) say where it ended.
	v, err := env.Client.QueryWorkflow(ctx, api.UpgradeID(env.Cluster), "", "__temporal_workflow_metadata")
	require.NoError(t, err)
	var md sdkpb.WorkflowMetadata
	require.NoError(t, v.Get(&md))
	require.Contains(t, md.GetCurrentDetails(), "phase **Done**")
	require.Contains(t, md.GetCurrentDetails(), "| rack4 | Succeeded |")

	// The Temporal UI names every step: each activity and child of the
	// upgrade, a rack and a server carries a readable summary.
	for _, id := range []string{api.UpgradeID(env.Cluster), api.RackUpgradeID(env.Cluster, "rack2"), api.ServerUpgradeID(env.Cluster, "rack2-c3")} {
		requireSummaries(t, env.Client, id)
	}
}

// requireSummaries fails when a scheduled activity or started child in the
// workflow's history has no summary for the UI, or a child no details.
func requireSummaries(t *testing.T, c client.Client, id string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dc := converter.GetDefaultDataConverter()
	it := c.GetWorkflowHistory(ctx, id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	steps := 0
	for it.HasNext() {
		ev, err := it.Next()
		require.NoError(t, err)
		var name string
		switch ev.GetEventType() {
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
			name = "activity " + ev.GetActivityTaskScheduledEventAttributes().GetActivityType().GetName()
		case enumspb.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED:
			name = "child " + ev.GetStartChildWorkflowExecutionInitiatedEventAttributes().GetWorkflowId()
		default:
			continue
		}
		steps++
		var summary string
		if p := ev.GetUserMetadata().GetSummary(); p != nil {
			require.NoError(t, dc.FromPayload(p, &summary))
		}
		require.NotEmpty(t, summary, "%s: event %d (%s) has no summary", id, ev.GetEventId(), name)
		if ev.GetEventType() == enumspb.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED {
			var details string
			if p := ev.GetUserMetadata().GetDetails(); p != nil {
				require.NoError(t, dc.FromPayload(p, &details))
			}
			require.NotEmpty(t, details, "%s: event %d (%s) has no details", id, ev.GetEventId(), name)
		}
	}
	require.NotZero(t, steps, "%s scheduled nothing", id)
}
