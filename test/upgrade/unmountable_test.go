package upgrade_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/lab/faults"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
)

// Issue 26, end to end: no step reports an effect it has not seen.

// An upgrade of a rack where one compute's BMC cannot mount the installer
// fails that server within a minute of its insert, saying the installer
// was not mounted; the rest of the rack goes on and the threshold judges.
func TestE2EUpgradeWithAnUnmountableInstaller(t *testing.T) {
	t.Parallel()
	const bad = "rack2-c3"
	env, ctx, run := upgradeWithMediaFault(t, bad, "media-unmountable")

	// The insert the BMC answered and never carried out, then the failure.
	var inserted, failed time.Time
	env.Eventually(8*time.Minute, bad+" failed", func() bool {
		if inserted.IsZero() {
			inserted = faultAt(t, env, bad, faults.MediaUnmount)
		}
		b := env.BMM(bad)
		if b.DetailedStatus == model.BMMError && strings.Contains(b.DetailedStatusMessage, "not mounted") {
			failed = time.Now()
			return true
		}
		return false
	})
	require.False(t, inserted.IsZero(), "the lab logged the insert it did not carry out")
	require.Less(t, failed.Sub(inserted), time.Minute, "failed within a minute of its insert")

	var st api.UpgradeStatus
	require.NoError(t, run.Get(ctx, &st))
	badErr := failedWith(st, bad)
	for _, f := range failedServers(st) {
		if f.Name != bad {
			require.NotContains(t, f.Error, "not mounted", "only %s's BMC cannot mount", bad)
		}
	}
	t.Logf("%s failed %s after its insert: %s", bad, failed.Sub(inserted).Round(time.Second), badErr)
	require.Contains(t, badErr, "the installer was not mounted", "%+v", st.Racks)
	require.Contains(t, badErr, "check that the BMC can reach the image server")
	require.Equal(t, "4.2.0", env.BMM("rack2-c1").RuntimeVersion, "the rest of the rack goes on")
	require.Zero(t, env.Lab.ReimageCounts()[bad])
}

// upgradeWithMediaFault starts a lenient upgrade of a two-rack lab where
// bad's BMC has the media fault kind, and one compute beside bad in its
// rack: the subject is one server's failure and its rack going on.
func upgradeWithMediaFault(t *testing.T, bad, kind string) (*e2e.Env, context.Context, client.WorkflowRun) {
	t.Helper()
	env := e2e.Start(t, "../../examples/two-rack.yaml", e2e.Options{Mutate: func(inv *model.Inventory) {
		inv.Lab = []byte(`{"faults": [{"bmm": "` + bad + `", "kind": "` + kind + `"}]}`)
		e2e.KeepComputes(inv, 1, func(name string) bool { return name == bad })
	}})
	ctx := env.Context(10 * time.Minute)
	run := env.StartUpgradeInput(ctx, api.UpgradeInput{TargetVersion: "4.2.0", UpdateStrategy: lenientRack(),
		DrainTimeout: 30 * time.Second, VMShutdownTimeout: 30 * time.Second})
	return env, ctx, run
}

// faultAt is when the lab logged kind's effect on bmm (zero: not yet).
func faultAt(t *testing.T, env *e2e.Env, bmm string, kind faults.Kind) time.Time {
	t.Helper()
	for _, e := range env.Lab.Events.Events() {
		if e.Kind == events.Fault && e.BMM == bmm && e.Detail["kind"] == string(kind) && e.Detail["image"] != nil {
			return e.Time
		}
	}
	return time.Time{}
}
