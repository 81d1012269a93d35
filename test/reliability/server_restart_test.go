package reliability

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	enumspb "go.temporal.io/api/enums/v1"
)

// The Temporal server is stopped and started again (same sqlite file, same
// port) while an upgrade runs: twice during a four-rack upgrade at full
// size, once during a one-rack upgrade at the reduced size. The worker
// binary keeps running: the SDK retries its polls and completions until
// the server is back, so the same process must be seen polling again and
// the upgrade must complete.
func TestServerRestartDuringUpgrade(t *testing.T) {
	t.Parallel()
	// Early in the control-plane phase (and again among the compute racks).
	inventory, at := "../../examples/one-rack.yaml", []int{2}
	if full {
		inventory, at = "../../examples/four-rack.yaml", []int{2, 20}
	}
	s := startSite(t, inventory, siteOptions{Mutate: noLabSection})
	ctx := s.Context(30 * time.Minute)
	id := api.UpgradeID(s.Cluster)
	s.start(ctx, id, api.RuntimeUpgradeWorkflowName, upgradeInput(s, model.UpdateStrategy{}))
	r := s.restarts(ctx, id, at)
	st, ok := upgradeOutcome(t, s, ctx)
	r.check(t, s, len(at))
	checkBool(t, "server restart: upgrade completed", ok)
	checkUpgradeResult(t, s, "server restart", st, nil)
}

// restartRecord is what restarts observed.
type restartRecord struct {
	restarts, reconnected int
	pid                   int // the worker process across the restarts
}

// restarts restarts the server each time the lab has finished the given
// number of reimages, while the workflow id still runs, and checks after
// each that the same worker process polls again.
func (s *site) restarts(ctx context.Context, id string, at []int) restartRecord {
	s.T.Helper()
	r := restartRecord{}
	r.pid, _ = s.proc.pid()
	for _, n := range at {
		s.Eventually(20*time.Minute, fmt.Sprintf("%d reimages done", n), func() bool { return reimages(s) >= n || !s.running(id) })
		if !s.running(id) {
			break
		}
		s.RestartServer()
		r.restarts++
		if s.pollingAgain(ctx, r.pid) {
			r.reconnected++
		}
	}
	return r
}

func (r restartRecord) check(t *testing.T, s *site, want int) {
	t.Helper()
	const sc = "server restart"
	check(t, sc+": restarts mid-upgrade", fmt.Sprint(want), fmt.Sprint(r.restarts), r.restarts == want)
	now, alive := s.proc.pid()
	check(t, sc+": same worker process polling again", fmt.Sprintf("%d/%d", want, want),
		fmt.Sprintf("%d/%d (pid %d→%d alive=%v)", r.reconnected, r.restarts, r.pid, now, alive),
		r.reconnected == want && now == r.pid && alive)
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
