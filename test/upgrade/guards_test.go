package upgrade_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/invariants"
	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/converter"
)

// Issue 24, the image preflight: with the target's installer missing from
// the site's image server, the upgrade is refused before anything is
// touched, naming the URL and the answer; once the image is there, the
// same upgrade runs to its end.
func TestE2EUpgradeRefusedWithoutItsImage(t *testing.T) {
	t.Parallel()
	env := e2e.Start(t, "../../examples/two-rack.yaml", e2e.Options{Mutate: func(inv *model.Inventory) {
		inv.Lab = []byte(`{"missingImages": ["4.2.0"]}`)
		// The refusal is the subject: two computes a rack (the canary, a rack after) show nothing touched, then the same upgrade run.
		e2e.KeepComputes(inv, 2, nil)
	}})
	ctx := env.Context(10 * time.Minute)
	url := env.Lab.ImagesURL() + "/rackroll-4.2.0.iso"
	require.Equal(t, strings.ReplaceAll(env.State().ImageURLTemplate, "{version}", "4.2.0"), url, "the lab's image server is the site's")

	run, err := env.StartUpgrade(ctx, "4.2.0")
	require.NoError(t, err)
	err = run.Get(ctx, nil)
	require.Error(t, err)
	for _, want := range []string{"preflight", url, "404 Not Found", "no server was touched"} {
		require.ErrorContains(t, err, want)
	}
	for _, kind := range []string{events.Cordon, events.MediaInsert, events.ReimageStart, events.PowerOff, events.Reset} {
		require.Zero(t, env.Lab.Events.Count(kind, ""), "%s before the refusal", kind)
	}
	require.Positive(t, env.Lab.Events.Count(events.ImageRequest, ""), "the worker asked the image server")
	require.Equal(t, model.ClusterRunning, env.State().Cluster.DetailedStatus, "the cluster is left as it was")

	env.Lab.SetImageMissing("4.2.0", false)
	st := env.Upgrade(ctx, "4.2.0")
	require.NotNil(t, st.Image)
	require.True(t, st.Image.OK, st.Image.Answer)
	require.Equal(t, "4.2.0", env.State().Cluster.RuntimeVersion)
}

// Issue 24, stop on systemic failure: the first two computes of the first
// rack fail their install; with a threshold of 0 % the upgrade still
// pauses after those two, before any other compute is reimaged, naming
// the step and the servers. Continue goes on with the rest.
func TestE2ESystemicFailurePausesTheUpgrade(t *testing.T) {
	t.Parallel()
	env := e2e.Start(t, "../../examples/two-rack.yaml", e2e.Options{Mutate: func(inv *model.Inventory) {
		inv.Timeouts = &model.TimeoutsSpec{Reimage: durationOf(30 * time.Second)}
		inv.Lab = []byte(`{"timings": {"boot": "3s", "reimage": "5s", "powerTransition": "1s", "drain": "1s"},
			"faults": [{"bmm": "rack1-c1", "kind": "reimage-fails"}, {"bmm": "rack1-c2", "kind": "reimage-fails"}]}`)
		// The canary (rack1-c1, c2), one compute after it in its own rack and
		// one in the next: each kind of server the pause must hold back.
		e2e.KeepComputes(inv, 0, func(name string) bool {
			return slices.Contains([]string{"rack1-c1", "rack1-c2", "rack1-c3", "rack2-c4"}, name)
		})
	}})
	ctx := env.Context(12 * time.Minute)
	run := env.StartUpgradeWith(ctx, model.UpdateStrategy{ThresholdType: model.ThresholdPercentSuccess, ThresholdValue: 0, WaitTimeMinutes: new(int)})
	st := env.AwaitPaused(ctx, 8*time.Minute, "the upgrade pauses after the canary")
	for _, want := range []string{"rack1-c1, rack1-c2", "same step", "systemic"} {
		require.Contains(t, st.DetailedStatusMessage, want)
	}
	computes := 0
	for _, e := range env.Lab.Events.Events() {
		if e.Kind == events.ReimageStart && e.BMM != "rack1-c1" && e.BMM != "rack1-c2" && env.BMM(e.BMM).HasRole(model.RoleCompute) {
			computes++
		}
	}
	require.Zero(t, computes, "no other compute reimaged before the operator's word")

	env.Continue(ctx)
	require.NoError(t, run.Get(ctx, &st))
	require.Equal(t, model.ClusterRunning, st.DetailedStatus, st.DetailedStatusMessage)
	require.Equal(t, "4.2.0", env.BMM("rack2-c4").RuntimeVersion, "the rest went on")

	// The lab checker holds the log to the same rule: nothing outside the
	// canary started before the operator's word.
	site, err := invariants.SiteFromInventory(env.Inventory)
	require.NoError(t, err)
	site = invariants.WithUpgrade(site, st)
	require.True(t, slices.ContainsFunc(site.Units, func(u invariants.Unit) bool { return u.Systemic && u.ContinuedAt != nil }), "%+v", site.Units)
	for _, v := range invariants.Check(env.Lab.Events.Events(), site) {
		require.NotEqual(t, invariants.RuleSystemic, v.Rule, v.String())
	}
}

// fullSecondRack is a two-rack site whose second rack cannot fit
// elsewhere: rack1 keeps two computes, lightly loaded; rack2's four are
// 60 % full, so once rack1 is upgraded (its pods moved to rack2), rack2's
// eight pods of 30 % find room for six on rack1's two nodes.
func fullSecondRack(inv *model.Inventory) {
	var kept []model.ServerSpec
	for _, s := range inv.Racks[0].Servers {
		if s.Name != "rack1-c3" && s.Name != "rack1-c4" {
			kept = append(kept, s)
		}
	}
	inv.Racks[0].Servers = kept
	inv.Lab = []byte(`{"timings": {"boot": "3s", "reimage": "5s", "powerTransition": "1s", "drain": "1s"},
		"tenantLoad": {"rack1": 0.1, "rack2": 0.6}}`)
}

// computeCordons counts the cordons of rack's compute servers.
func computeCordons(env *e2e.Env, rack string) int {
	n := 0
	for _, e := range env.Lab.Events.Events() {
		if e.Kind == events.Cordon && strings.HasPrefix(e.BMM, rack+"-c") {
			n++
		}
	}
	return n
}

// Issue 24, capacity before drain: Pause pauses before draining rack2,
// naming the shortfall and the pods; Warn proceeds and its status names
// the pods left Pending.
func TestE2ECapacityGuard(t *testing.T) {
	t.Parallel()
	t.Run("Pause", func(t *testing.T) {
		env := e2e.Start(t, "../../examples/two-rack.yaml", e2e.Options{Mutate: fullSecondRack})
		ctx := env.Context(10 * time.Minute)
		run := env.StartUpgradeWith(ctx, model.UpdateStrategy{CapacityPolicy: model.CapacityPause, WaitTimeMinutes: new(int)})
		st := env.AwaitPaused(ctx, 8*time.Minute, "the upgrade pauses before rack2")
		for _, want := range []string{"rack2", "short by", "2 pods would be left Pending", "tenant/app-rack2-"} {
			require.Contains(t, st.DetailedStatusMessage, want)
		}
		require.Zero(t, computeCordons(env, "rack2"), "rack2's computes were not touched before the operator's word")

		env.Continue(ctx)
		require.NoError(t, run.Get(ctx, &st))
		require.Equal(t, model.ClusterRunning, st.DetailedStatus, st.DetailedStatusMessage)
		// The lab checker holds rack2's drain to the operator's word.
		site, err := invariants.SiteFromInventory(env.Inventory)
		require.NoError(t, err)
		site = invariants.WithUpgrade(site, st)
		require.Len(t, site.Holds, 1, "%+v", st.Capacity)
		require.Equal(t, "rack2", site.Holds[0].Unit)
		require.NotNil(t, site.Holds[0].ContinuedAt)
		require.Empty(t, invariants.Check(env.Lab.Events.Events(), site))
		env.RecordHistoriesAs("capacity", api.UpgradeID(env.Cluster), api.RackUpgradeID(env.Cluster, "rack2"),
			api.RackUpgradeID(env.Cluster, "rack1-canary"))
	})
	t.Run("Warn", func(t *testing.T) {
		env := e2e.Start(t, "../../examples/two-rack.yaml", e2e.Options{Mutate: fullSecondRack})
		var st api.UpgradeStatus
		ctx := env.Context(10 * time.Minute)
		run := env.StartUpgradeWith(ctx, model.UpdateStrategy{CapacityPolicy: model.CapacityWarn, WaitTimeMinutes: new(int)})
		// The rack reports its shortfall as it starts: the status names the
		// pods while rack2 drains, not only once it is done.
		var during api.UpgradeStatus
		env.Eventually(8*time.Minute, "rack2's shortfall in the status", func() bool {
			s, ok := env.UpgradeStatus(ctx)
			during = s
			return ok && slices.ContainsFunc(s.Capacity, func(c api.CapacityCheck) bool { return c.Unit == "rack2" && !c.Fits })
		})
		require.Equal(t, api.StateRunning, during.Racks[1].State, "seen while rack2 runs")
		require.NoError(t, run.Get(ctx, &st))
		require.Equal(t, model.ClusterRunning, st.DetailedStatus, st.DetailedStatusMessage)
		var rack2 *api.CapacityCheck
		for i, c := range st.Capacity {
			if c.Unit == "rack2" {
				rack2 = &st.Capacity[i]
			}
		}
		require.NotNil(t, rack2, "%+v", st.Capacity)
		require.False(t, rack2.Fits)
		require.Len(t, rack2.Pending, 2, rack2.Message)
		require.True(t, strings.HasPrefix(rack2.Pending[0], "tenant/app-rack2-"), rack2.Pending[0])
		require.Contains(t, strings.Join(st.Guards(), "\n"), "capacity SHORT: rack2")
	})
	t.Run("each server", func(t *testing.T) {
		// A server at a time: each rack2 server after the first is a batch
		// of its own, checked before it starts.
		env := e2e.Start(t, "../../examples/two-rack.yaml", e2e.Options{Mutate: fullSecondRack})
		ctx := env.Context(10 * time.Minute)
		run := env.StartUpgradeWith(ctx, model.UpdateStrategy{MaxUnavailable: 1, WaitTimeMinutes: new(int)})
		var st api.UpgradeStatus
		require.NoError(t, run.Get(ctx, &st))
		require.Equal(t, model.ClusterRunning, st.DetailedStatus, st.DetailedStatusMessage)
		id := api.RackUpgradeID(env.Cluster, "rack2")
		require.Equal(t, []string{"Check capacity for rack2", "Check capacity for rack2 rack2-c2", "Check capacity for rack2 rack2-c3",
			"Check capacity for rack2 rack2-c4"}, activitySummaries(t, env, id, "CheckCapacity"))
		env.RecordHistoriesAs("capacity-each", id)
	})
}

// activitySummaries are the UI summaries of the activities of type name the
// workflow id ran, in order: scheduled activities and local activities (a
// LocalActivity marker, its type in the marker's data; capacity-local).
func activitySummaries(t *testing.T, env *e2e.Env, id, name string) []string {
	t.Helper()
	it := env.Client.GetWorkflowHistory(context.Background(), id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	var out []string
	dc := converter.GetDefaultDataConverter()
	for it.HasNext() {
		ev, err := it.Next()
		require.NoError(t, err)
		typ := ev.GetActivityTaskScheduledEventAttributes().GetActivityType().GetName()
		if m := ev.GetMarkerRecordedEventAttributes(); m.GetMarkerName() == "LocalActivity" {
			var data struct{ ActivityType string }
			require.NoError(t, dc.FromPayloads(m.GetDetails()["data"], &data))
			typ = data.ActivityType
		}
		if typ != name {
			continue
		}
		var summary string
		require.NoError(t, dc.FromPayload(ev.GetUserMetadata().GetSummary(), &summary))
		out = append(out, summary)
	}
	return out
}
