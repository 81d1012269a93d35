package upgrade_test

import (
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/stretchr/testify/require"
)

// Issue 24, the image preflight: with the target's installer missing from
// the site's image server, the upgrade is refused before anything is
// touched, naming the URL and the answer; once the image is there, the
// same upgrade runs to its end.
func TestE2EUpgradeRefusedWithoutItsImage(t *testing.T) {
	env := e2e.Start(t, "../../examples/two-rack.yaml", e2e.Options{Mutate: func(inv *model.Inventory) {
		inv.Lab = []byte(`{"missingImages": ["4.2.0"]}`)
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
