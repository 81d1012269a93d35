package reliability

import (
	"fmt"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
)

// noLabSection drops the example's own lab timings and faults: the tests
// set their own.
func noLabSection(inv *model.Inventory) { inv.Lab = nil }

// The worker binary is SIGKILLed at random moments of a whole runtime
// upgrade and restarted each time. The upgrade must complete, every BMM
// but the retired KCP be reimaged exactly once, and no safety invariant
// break. The run's histories, worker logs and starter output are then
// searched for the BMC password.
func TestCrashDuringUpgrade(t *testing.T) {
	t.Parallel()
	inventory, kills, goal := "../../examples/one-rack.yaml", 5, 5
	// Reduced: close together, so their stalls (an activity on a killed
	// worker is retried after its heartbeat timeout) overlap.
	minGap, maxGap := 200*time.Millisecond, 2*time.Second
	if full {
		inventory, kills, goal = "../../examples/four-rack.yaml", 24, 20
		minGap, maxGap = time.Second, 6*time.Second
	}
	s := startSite(t, inventory, siteOptions{Mutate: noLabSection})
	ctx := s.Context(40 * time.Minute)
	id := api.UpgradeID(s.Cluster)
	s.start(ctx, id, api.RuntimeUpgradeWorkflowName, upgradeInput(s, model.UpdateStrategy{}))
	c := startChaos(s.proc, rngFor(t), kills, minGap, maxGap, func() bool { return s.running(id) })
	began := time.Now()
	st, ok := upgradeOutcome(t, s, ctx)
	n := c.stop()
	t.Logf("upgrade with %d kills took %v", n, time.Since(began).Round(time.Second))

	const sc = "crash/upgrade"
	check(t, sc+": worker kills", fmt.Sprintf("≥ %d", goal), fmt.Sprint(n), n >= goal)
	checkBool(t, sc+": upgrade completed", ok)
	checkUpgradeResult(t, s, sc, st, nil)
	checkSecrets(t, s, sc, targetVersion)
}
