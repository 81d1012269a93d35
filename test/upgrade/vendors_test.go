package upgrade_test

import (
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/lab"
	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/lab/faults"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
)

// A different vendor per rack, and the two other profiles on single
// servers: what Redfish shows differs; rackroll must not care.
var vendorProfiles = map[string]string{
	"rack1": "idrac9", "rack2": "ilo5", "rack3": "supermicro", "rack4": "xcc",
	"rack1-c2": "idrac10", "rack2-c2": "dmtf",
}

// End to end on a mixed-vendor four-rack site: a full upgrade passes with
// each installer still inserted when its node came back and ejected only
// after; then, under every profile, a reimage whose node never comes back
// fails at its limit naming the node and the BMC's last state — no false
// success.
func TestE2EMixedVendorSite(t *testing.T) {
	t.Parallel()
	env := e2e.Start(t, "../../examples/four-rack.yaml", e2e.Options{Mutate: func(inv *model.Inventory) {
		// Three computes a rack: c2 and c3 are the servers the profiles and
		// the victims below name.
		e2e.KeepComputes(inv, 3, nil)
		inv.Lab, _ = json.Marshal(map[string]any{"bmcProfiles": vendorProfiles})
	}})
	for name, want := range vendorProfiles {
		if m := env.Lab.Machine(name); m != nil {
			require.Equal(t, want, m.Profile)
		}
	}
	require.Equal(t, "supermicro", env.Lab.Machine("rack3-c1").Profile, "a rack's profile covers its servers")

	t.Run("full upgrade", func(t *testing.T) {
		ctx := env.Context(10 * time.Minute)
		env.Upgrade(ctx, "4.2.0")
		cs := env.State()
		for _, b := range cs.Cluster.BMMs {
			if b.HasRole(model.RoleKCPSpare) {
				continue
			}
			require.Equal(t, "4.2.0", b.RuntimeVersion, b.Name)
		}
		evs := env.Events()
		require.Empty(t, lab.InstallerOrderProblems(evs))
		// Every reimage's installer came out, after its node was back.
		done, back, ejected := map[string]time.Time{}, map[string]time.Time{}, map[string]time.Time{}
		for _, e := range evs {
			switch e.Kind {
			case events.ReimageDone:
				done[e.BMM], back[e.BMM] = e.Time, time.Time{}
			case events.NodeReady:
				if !done[e.BMM].IsZero() && back[e.BMM].IsZero() {
					back[e.BMM] = e.Time
				}
			case events.MediaEject:
				ejected[e.BMM] = e.Time
			}
		}
		for name, n := range env.Lab.ReimageCounts() {
			if n == 0 {
				continue
			}
			require.False(t, back[name].IsZero(), "%s: its node never came back", name)
			require.False(t, ejected[name].Before(back[name]), "%s: last ejected at %v, its node back at %v", name, ejected[name], back[name])
		}
	})

	t.Run("a node that never comes back fails at the limit under every profile", func(t *testing.T) {
		victims := map[string]string{"idrac9": "rack1-c3", "idrac10": "rack1-c2", "ilo5": "rack2-c3",
			"supermicro": "rack3-c3", "xcc": "rack4-c3", "dmtf": "rack2-c2"}
		ctx := env.Context(5 * time.Minute)
		var wg sync.WaitGroup
		errs := map[string]error{}
		var mu sync.Mutex
		for profile, name := range victims {
			require.Equal(t, profile, env.Lab.Machine(name).Profile)
			require.NoError(t, env.Lab.SetFault(name, faults.ReimageHangs, 0, false))
			wg.Add(1)
			go func() {
				defer wg.Done()
				r, err := env.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: api.ActionID(env.Cluster, name, 7000), TaskQueue: api.TaskQueue},
					api.BMMActionWorkflowName, api.ActionInput{Cluster: env.Cluster, BMM: name, Action: api.ActionReimage,
						EvacuateTimeout: 3 * time.Second, TimeLimit: 25 * time.Second})
				if err == nil {
					err = r.Get(ctx, nil)
				}
				mu.Lock()
				errs[profile] = err
				mu.Unlock()
			}()
		}
		wg.Wait()
		for profile, name := range victims {
			err := errs[profile]
			require.Error(t, err, "%s (%s): a reimage whose node never came back must not succeed", name, profile)
			require.Contains(t, err.Error(), "node "+name+" did not come back on 4.2.0", profile)
			require.Contains(t, err.Error(), "the BMC showed last", profile)
		}
	})
}
