package reliability

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/workflows/api"
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
	inventory, kills, goal := "../../examples/two-rack.yaml", 5, 5
	minGap, maxGap := 500*time.Millisecond, 3*time.Second
	if full {
		inventory, kills, goal = "../../examples/four-rack.yaml", 24, 20
		minGap, maxGap = time.Second, 6*time.Second
	}
	s := startSite(t, inventory, siteOptions{Mutate: noLabSection})
	defer s.Dump()
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Minute)
	defer cancel()
	id := api.UpgradeID(s.Cluster)
	s.start(ctx, id, api.RuntimeUpgradeWorkflowName, upgradeInput(s, model.UpdateStrategy{}))
	c := startChaos(s.proc, rngFor(t), kills, minGap, maxGap, func() bool { return s.running(id) })
	st, ok := upgradeOutcome(t, s, ctx)
	n := c.stop()

	const sc = "crash/upgrade"
	check(t, sc+": worker kills", fmt.Sprintf("≥ %d", goal), fmt.Sprint(n), n >= goal)
	checkBool(t, sc+": upgrade completed", ok)
	checkUpgradeResult(t, s, sc, st, nil)
	checkSecrets(t, s, sc, targetVersion)
}
