package workflows

import (
	"testing"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/stretchr/testify/require"
)

// An image that does not answer refuses the upgrade in its preflight,
// naming the URL and the answer, before any server is touched; the
// cluster stays as it was.
func TestUpgradeRefusedWhenTheImageIsMissing(t *testing.T) {
	f, env := siteEnv(t, "../examples/two-rack.yaml")
	url := "http://images.rackroll.local/rackroll-4.2.0.iso"
	f.missingImages[url] = true

	env.ExecuteWorkflow(RuntimeUpgradeWorkflow, upgradeInput(model.UpdateStrategy{}))
	err := env.GetWorkflowError()
	require.Error(t, err)
	for _, want := range []string{"preflight", url, "404 Not Found", "no server was touched"} {
		require.ErrorContains(t, err, want)
	}
	require.Equal(t, []string{url}, urlsOf(f), "asked once, for the target's image")
	require.Empty(t, f.reimages)
	require.Empty(t, f.cordoned)
	require.Empty(t, f.st.Leases)
	require.Equal(t, model.ClusterRunning, f.st.Cluster.DetailedStatus, "the cluster is left as it was")
	require.Empty(t, f.st.UpgradeTarget)
}

// A present image lets the upgrade go on, and its status says what the
// image server answered; the checksum the inventory gives is asked for.
func TestUpgradeRecordsTheImageCheck(t *testing.T) {
	env := newEnv()
	f := newFakeSite(t, "../examples/two-rack.yaml")
	f.st.ImageSHA256 = map[string]string{"4.2.0": "ab12"}
	f.register(env)

	env.ExecuteWorkflow(RuntimeUpgradeWorkflow, upgradeInput(model.UpdateStrategy{}))
	require.NoError(t, env.GetWorkflowError())
	var st api.UpgradeStatus
	require.NoError(t, env.GetWorkflowResult(&st))
	require.NotNil(t, st.Image)
	require.True(t, st.Image.OK)
	require.Equal(t, "200 OK, 1024 bytes", st.Image.Answer)
	require.Len(t, f.imageChecks, 1)
	require.Equal(t, "ab12", f.imageChecks[0].SHA256)
}

func urlsOf(f *fakeSite) []string {
	var out []string
	for _, c := range f.imageChecks {
		out = append(out, c.URL)
	}
	return out
}
