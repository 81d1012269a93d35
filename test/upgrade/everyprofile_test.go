package upgrade_test

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/lab/redfish"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/stretchr/testify/require"
)

// unreimageable profiles: nomedia has no virtual media to mount an
// installer in (site check blocks it).
var unreimageable = []string{"nomedia"}

// Issue 35's "Done when", end to end: a runtime upgrade of a site whose
// BMCs cover every lab profile that can reimage — each vendor, each shape
// of the inserted image (file name, ImageName only, default port dropped,
// host re-cased, percent-encoded, shown late, the URL a redirect led to),
// a Legacy-default boot mode, no boot mode at all, no authentication —
// one profile per server, with the site's image server behind a redirect,
// completes with every server at the target and `starter lab check`
// finding nothing. New profiles join by being registered.
func TestE2EUpgradeUnderEveryProfile(t *testing.T) {
	t.Parallel()
	var compute []string
	inv, err := model.LoadInventory("../../examples/four-rack.yaml")
	require.NoError(t, err)
	for _, ref := range inv.Servers() {
		if ref.Server.Role == model.RoleCompute {
			compute = append(compute, ref.Server.Name)
		}
	}
	profiles := map[string]string{}
	for _, p := range redfish.ProfileNames() {
		if !slices.Contains(unreimageable, p) {
			require.Less(t, len(profiles), len(compute), "more profiles than compute servers: use a bigger site")
			profiles[compute[len(profiles)]] = p
		}
	}
	env := e2e.Start(t, "../../examples/four-rack.yaml", e2e.Options{Mutate: func(inv *model.Inventory) {
		// The servers with a profile, and one compute a rack besides.
		e2e.KeepComputes(inv, 1, func(name string) bool { _, ok := profiles[name]; return ok })
		inv.Lab, _ = json.Marshal(map[string]any{"bmcProfiles": profiles, "redirectImages": true})
	}})
	for name, p := range profiles {
		require.Equal(t, p, env.Lab.Machine(name).Profile)
	}
	ctx := env.Context(15 * time.Minute)
	st := env.Upgrade(ctx, "4.2.0")
	requireAtTarget(t, env, st)
	counts := env.Lab.ReimageCounts()
	for name, p := range profiles {
		require.Equal(t, 1, counts[name], "%s (%s) reimaged once", name, p)
	}
	evs := env.Events()
	require.False(t, slices.ContainsFunc(evs, func(e events.Event) bool { return e.Kind == events.BootSkipped }),
		"no installer boot was passed over for its mode")
	require.True(t, slices.ContainsFunc(evs, func(e events.Event) bool {
		return e.Kind == events.ImageRequest && e.Detail["status"] == float64(302)
	}), "the image URL was redirected")
}
