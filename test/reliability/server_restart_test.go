package reliability

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/workflows/api"
	enumspb "go.temporal.io/api/enums/v1"
)

// The Temporal server is stopped and started again (same sqlite file, same
// port) while an upgrade runs. The worker binary keeps running: the SDK
// retries its polls and completions until the server is back, so the same
// process must be seen polling again and the upgrade must complete.
func TestServerRestartDuringUpgrade(t *testing.T) {
	inventory := "../../examples/two-rack.yaml"
	// Restart after this many reimages have finished: early in the control
	// plane phase, and (full size) again among the compute racks.
	restartAt := []int{1}
	if full {
		inventory, restartAt = "../../examples/four-rack.yaml", []int{2, 20}
	}
	s := startSite(t, inventory, siteOptions{Mutate: noLabSection})
	defer s.Dump()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	pid, _ := s.proc.pid()
	id := api.UpgradeID(s.Cluster)
	s.start(ctx, id, api.RuntimeUpgradeWorkflowName, upgradeInput(s, model.UpdateStrategy{}))

	restarts, reconnected := 0, 0
	for _, at := range restartAt {
		s.Eventually(20*time.Minute, fmt.Sprintf("%d reimages done", at), func() bool { return reimages(s) >= at })
		if !s.running(id) {
			break
		}
		s.restartServer()
		restarts++
		if s.pollingAgain(ctx, pid) {
			reconnected++
		}
	}
	st, ok := upgradeOutcome(t, s, ctx)
	now, alive := s.proc.pid()

	const sc = "server restart"
	check(t, sc+": restarts mid-upgrade", fmt.Sprintf("%d", len(restartAt)), fmt.Sprint(restarts), restarts == len(restartAt))
	checkBool(t, sc+": upgrade completed", ok)
	check(t, sc+": same worker process polling again after each restart", "yes",
		fmt.Sprintf("%d/%d (pid %d alive=%v, started %d×)", reconnected, restarts, now, alive, s.proc.starts),
		reconnected == restarts && now == pid && alive && s.proc.starts == 1)
	checkUpgradeResult(t, s, sc, st, nil)
}

func reimages(s *site) int {
	n := 0
	for _, c := range s.Lab.ReimageCounts() {
		n += c
	}
	return n
}

// pollingAgain waits until the restarted server (which keeps no poller
// list across restarts) sees the worker process pid poll the workflow task
// queue. The SDK names a worker "<pid>@<host>@".
func (s *site) pollingAgain(ctx context.Context, pid int) bool {
	prefix := fmt.Sprintf("%d@", pid)
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		resp, err := s.Client.DescribeTaskQueue(ctx, api.TaskQueue, enumspb.TASK_QUEUE_TYPE_WORKFLOW)
		if err == nil {
			for _, p := range resp.Pollers {
				if strings.HasPrefix(p.Identity, prefix) {
					return true
				}
			}
		}
		time.Sleep(500 * time.Millisecond)
	}
	return false
}
