// Package production proves rackroll on a production-shaped Temporal (the
// docs/production.md#production): each Temporal service a process of its
// own on PostgreSQL (internal/temporalcluster), the namespace and search
// attributes registered with the Temporal CLI, two worker processes, and
// a full runtime upgrade of the four-rack lab (four computes a rack) while a worker is killed and
// the history and matching services restart.
package production

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/temporalcluster"
	enumspb "go.temporal.io/api/enums/v1"
)

const targetVersion = "4.2.0"

func TestUpgradeOnProductionTemporal(t *testing.T) {
	if testing.Short() {
		t.Skip("production: starts PostgreSQL, four Temporal services, the lab and two workers")
	}
	began := time.Now()
	s := startSite(t, "../../examples/four-rack.yaml", 2)
	t.Logf("PostgreSQL, Temporal (%v), the lab and two workers up in %v", s.temporal.Address, time.Since(began).Round(time.Second))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()

	if _, err := s.starter(ctx, "cluster", "register", "--inventory", s.invPath); err != nil {
		t.Fatal(err)
	}
	if _, err := s.starter(ctx, "upgrade", "start", "--cluster", s.cluster, "--version", targetVersion,
		"--wait-time-minutes", "0", "--drain-timeout", "5s", "--vm-shutdown-timeout", "5s"); err != nil {
		t.Fatal(err)
	}
	id := api.UpgradeID(s.cluster)
	upgradeStart := time.Now()

	// Disruptions at so many reimages done (of 25): among the KCPs, the
	// management servers, and the compute racks. worker-b carries the
	// upgrade alone between the kill and the history restart.
	workerA := s.workers[0]
	s.at(ctx, id, 3, "SIGKILL worker-a", func() error {
		workerA.Stop(syscall.SIGKILL)
		return nil
	})
	s.at(ctx, id, 12, "start worker-a again and restart the history service", func() error {
		if err := workerA.Start(); err != nil {
			return err
		}
		return s.restartHistory(ctx)
	})
	s.at(ctx, id, 20, "restart the matching service", func() error {
		return s.temporal.Restart(ctx, "matching")
	})

	st := s.waitUpgrade(ctx, id)
	t.Logf("upgrade took %v", time.Since(upgradeStart).Round(time.Second))
	if st.DetailedStatus != model.ClusterRunning {
		t.Fatalf("upgrade ended %s: %s", st.DetailedStatus, st.DetailedStatusMessage)
	}
	s.checkReimagedOnce()
	s.checkWorkers(ctx)
	s.checkVisibility(ctx)
	s.checkLab(ctx)
	for _, svc := range []string{"history", "matching"} {
		if n := s.temporal.Starts(svc); n != 2 {
			t.Errorf("%s service started %d times, want 2 (one restart)", svc, n)
		}
	}
	t.Logf("whole test %v", time.Since(began).Round(time.Second))
}

// at waits until the lab has done n reimages and runs the disruption. The
// upgrade ending first fails the test: the disruption would prove nothing.
func (s *site) at(ctx context.Context, id string, n int, what string, disrupt func() error) {
	s.t.Helper()
	s.eventually(20*time.Minute, fmt.Sprintf("%d reimages before: %s", n, what), func() error {
		if s.reimages() >= n {
			return nil
		}
		if !s.running(ctx, id) {
			s.t.Fatalf("the upgrade ended before %d reimages, the moment to %s", n, what)
		}
		return fmt.Errorf("%d reimages done", s.reimages())
	})
	began := time.Now()
	if err := disrupt(); err != nil {
		s.t.Fatalf("%s: %v", what, err)
	}
	s.t.Logf("at %d reimages: %s (%v)", s.reimages(), what, time.Since(began).Round(100*time.Millisecond))
}

// restartHistory restarts the history service and checks that the new
// process took every shard over: acquiring a shard bumps its range id
// (the fencing token that keeps a stale owner from writing).
func (s *site) restartHistory(ctx context.Context) error {
	before, err := s.temporal.ShardRangeIDs(ctx)
	if err != nil {
		return err
	}
	if err := s.temporal.Restart(ctx, "history"); err != nil {
		return err
	}
	after, err := s.temporal.ShardRangeIDs(ctx)
	if err != nil {
		return err
	}
	if len(before) != temporalcluster.HistoryShards || len(after) != len(before) {
		return fmt.Errorf("shards before the restart %v, after %v: want %d", before, after, temporalcluster.HistoryShards)
	}
	for shard, r := range before {
		if after[shard] <= r {
			return fmt.Errorf("shard %s: range id %d before the restart, %d after: not re-acquired", shard, r, after[shard])
		}
	}
	s.t.Logf("history shards re-acquired: range ids %v → %v", before, after)
	return nil
}

// running reports whether the workflow still runs (true when the server
// does not answer: a service restarting is no reason to stop waiting).
func (s *site) running(ctx context.Context, id string) bool {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	d, err := s.client.DescribeWorkflowExecution(ctx, id, "")
	return err != nil || d.WorkflowExecutionInfo.Status == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING
}

// waitUpgrade polls until the upgrade closes, then reads its result.
func (s *site) waitUpgrade(ctx context.Context, id string) api.UpgradeStatus {
	s.t.Helper()
	for s.running(ctx, id) {
		select {
		case <-ctx.Done():
			s.t.Fatalf("%s still running at the test's deadline (%d reimages done)", id, s.reimages())
		case <-time.After(time.Second):
		}
	}
	var st api.UpgradeStatus
	if err := s.client.GetWorkflow(ctx, id, "").Get(ctx, &st); err != nil {
		s.t.Fatalf("%s: %v", id, err)
	}
	return st
}
