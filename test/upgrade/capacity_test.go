package upgrade_test

import (
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/stretchr/testify/require"
)

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
	})
	t.Run("Warn", func(t *testing.T) {
		env := e2e.Start(t, "../../examples/two-rack.yaml", e2e.Options{Mutate: fullSecondRack})
		var st api.UpgradeStatus
		ctx := env.Context(10 * time.Minute)
		require.NoError(t, env.StartUpgradeWith(ctx, model.UpdateStrategy{CapacityPolicy: model.CapacityWarn, WaitTimeMinutes: new(int)}).Get(ctx, &st))
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
}
