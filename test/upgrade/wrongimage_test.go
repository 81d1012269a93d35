package upgrade_test

import (
	"strings"
	"testing"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/stretchr/testify/require"
)

// Issue 35, end to end: a server whose BMC shows a different image after
// the insert fails typed, naming the image it shows; it is never reset
// into it, and the rest of the rack goes on.
func TestE2EUpgradeWithAWrongImageShown(t *testing.T) {
	t.Parallel()
	const bad = "rack2-c3"
	env, ctx, run := upgradeWithMediaFault(t, bad, "media-wrong-image")

	var st api.UpgradeStatus
	require.NoError(t, run.Get(ctx, &st))
	badErr := failedWith(st, bad)
	require.Contains(t, badErr, "the BMC shows a different image", "%+v", st.Racks)
	require.Contains(t, badErr, "http://images.elsewhere.example/isos/ubuntu-22.04-live-server.iso", "it names the image shown")
	require.True(t, strings.Contains(env.BMM(bad).DetailedStatusMessage, "different image"), env.BMM(bad).DetailedStatusMessage)
	require.Zero(t, env.Lab.ReimageCounts()[bad])
	require.Equal(t, "4.2.0", env.BMM("rack2-c1").RuntimeVersion, "the rest of the rack goes on")
}
