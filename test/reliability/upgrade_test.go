package reliability

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/invariants"
	"github.com/rackroll/rackroll/internal/model"
	enumspb "go.temporal.io/api/enums/v1"
)

const targetVersion = "4.2.0"

// upgradeInput is the lab upgrade every scenario runs: no wait between
// racks, short drain and VM shutdown limits.
func upgradeInput(s *site, strategy model.UpdateStrategy) api.UpgradeInput {
	zero := 0
	if strategy.WaitTimeMinutes == nil {
		strategy.WaitTimeMinutes = &zero
	}
	return api.UpgradeInput{Cluster: s.Cluster, TargetVersion: targetVersion, UpdateStrategy: strategy,
		DrainTimeout: 5 * time.Second, VMShutdownTimeout: 5 * time.Second}
}

// upgradeOutcome waits for the upgrade and reads its final status.
func upgradeOutcome(t *testing.T, s *site, ctx context.Context) (api.UpgradeStatus, bool) {
	t.Helper()
	id := api.UpgradeID(s.Cluster)
	closed := s.waitClosed(ctx, id)
	var st api.UpgradeStatus
	if err := s.Client.GetWorkflow(ctx, id, "").Get(ctx, &st); err != nil {
		t.Errorf("upgrade ended %v: %v", closed, err)
		return st, false
	}
	ok := closed == enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED && st.DetailedStatus == model.ClusterRunning
	if !ok {
		t.Logf("upgrade: %v %s: %s", closed, st.DetailedStatus, st.DetailedStatusMessage)
	}
	return st, ok
}

// checkUpgradeResult records what every upgrade scenario must show: each
// BMM but the retired KCP (and the ones in failed) reimaged exactly once
// and on the target version, and no invariant broken.
func checkUpgradeResult(t *testing.T, s *site, scenario string, st api.UpgradeStatus, failed map[string]bool) {
	t.Helper()
	cs := s.State()
	retired := ""
	for _, b := range cs.Cluster.BMMs {
		if b.HasRole(model.RoleKCPSpare) {
			retired = b.Name
		}
	}
	good, total, bad := reimagedOnce(s.Lab.ReimageCounts(), func(n string) int {
		if n == retired || failed[n] {
			return 0
		}
		return 1
	})
	check(t, scenario+": reimaged exactly once", fmt.Sprintf("%d/%d", total, total),
		fmt.Sprintf("%d/%d%s", good, total, note(bad)), good == total && len(bad) == 0)
	var behind []string
	for _, b := range cs.Cluster.BMMs {
		if b.Name != retired && !failed[b.Name] && b.RuntimeVersion != targetVersion {
			behind = append(behind, b.Name+"@"+b.RuntimeVersion)
		}
	}
	check(t, scenario+": BMMs left behind the target version", "0", fmt.Sprint(len(behind))+note(behind), len(behind) == 0)
	checkInvariants(t, s, scenario, invariants.WithUpgrade(siteOf(t, s), st))
}

// note shortens a list of offenders for the table.
func note(list []string) string {
	if len(list) == 0 {
		return ""
	}
	if len(list) > 3 {
		list = append(list[:3:3], "…")
	}
	return " (" + strings.Join(list, ", ") + ")"
}
