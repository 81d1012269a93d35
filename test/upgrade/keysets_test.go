package upgrade_test

import (
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/stretchr/testify/require"
)

// requireKeysReestablished (issue 37): after the upgrade the users are
// back on every reinstalled server (the lab's node forgot them with its
// OS), and every keyset pod of the upgrade's time ran after its last
// reinstall: re-established once the upgrade completed, as the operator
// documents say, not rack by rack.
func requireKeysReestablished(t *testing.T, env *e2e.Env, st api.UpgradeStatus, evs []events.Event) {
	t.Helper()
	require.Contains(t, st.KeysNote, api.KeysetNodesID(env.Cluster))
	var reinstalled []string
	for name, n := range env.Lab.ReimageCounts() {
		if n > 0 {
			reinstalled = append(reinstalled, name)
		}
	}
	// The lab logs a keyset pod once the pod's status is written, a moment
	// after the node holds its users: wait for both (make test-profile on
	// dbddf21 counted 40 of 41 pods in between).
	podsAfter := func() (pods []events.Event) {
		for _, e := range env.Events() {
			if e.Kind == events.KeysetPod && e.Time.After(st.StartedAt) {
				pods = append(pods, e)
			}
		}
		return pods
	}
	env.Eventually(3*time.Minute, "both users back on every reinstalled server, each by a keyset pod", func() bool {
		return env.HoldBoth(reinstalled) && len(podsAfter()) >= len(reinstalled)
	})
	var last time.Time
	for _, e := range evs {
		if e.Kind == events.ReimageDone {
			last = e.Time
		}
	}
	pods := podsAfter()
	for _, e := range pods {
		require.True(t, e.Time.After(last), "keyset pod on %s at %s, before the last reinstall at %s", e.BMM, e.Time, last)
	}
	require.GreaterOrEqual(t, len(pods), len(reinstalled), "a keyset pod on every reinstalled server after the upgrade")
}
