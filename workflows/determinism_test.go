package workflows

import (
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/workflows/kernel"
	"github.com/rackroll/rackroll/workflows/upgrade"
	sdklog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

const upgradeHistory = "testdata/histories/upgrade_site-a.json"

// The replay tests are only worth something if the replayer catches a
// change to the commands a workflow issues. Each mutant below is
// RuntimeUpgradeWorkflow with one unversioned change, registered under the
// real name; replaying a recorded upgrade must fail with a nondeterminism
// error, while the unchanged workflow replays cleanly.
func TestDeterminismReplayerCatchesUnversionedChanges(t *testing.T) {
	if _, err := os.Stat(upgradeHistory); err != nil {
		t.Fatalf("%s: %v (record it with `make histories`)", upgradeHistory, err)
	}
	for _, tc := range []struct {
		name   string
		wf     func(workflow.Context, api.UpgradeInput) (api.UpgradeStatus, error)
		breaks bool
	}{
		{"unchanged", upgrade.RuntimeUpgradeWorkflow, false},
		{"extra timer behind GetVersion", upgradeWithVersionedTimer, false},
		{"extra timer first", upgradeWithExtraTimer, true},
		{"extra activity first", upgradeWithExtraActivity, true},
		{"activity replaced by a timer", upgradeWithTimerForPreflight, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := worker.NewWorkflowReplayer()
			// Only the replayed type is needed: children are not re-run on replay.
			r.RegisterWorkflowWithOptions(tc.wf, workflow.RegisterOptions{Name: api.RuntimeUpgradeWorkflowName})
			err := r.ReplayWorkflowHistoryFromJSONFile(sdklog.NewStructuredLogger(slog.New(slog.DiscardHandler)), upgradeHistory)
			if !tc.breaks {
				if err != nil {
					t.Fatalf("an unchanged or versioned workflow must replay: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("an unversioned command change replayed without error: the replay tests would not catch it")
			}
			// TMPRL1100 is the SDK's code for a nondeterminism error; some
			// mismatches say so in words, others only by the code.
			if msg := strings.ToLower(err.Error()); !strings.Contains(msg, "nondetermin") && !strings.Contains(msg, "tmprl1100") {
				t.Fatalf("error is not a nondeterminism error: %v", err)
			}
			t.Logf("caught: %v", err)
		})
	}
}

// upgradeWithExtraTimer sleeps before the upgrade: a timer the history
// never scheduled.
func upgradeWithExtraTimer(ctx workflow.Context, in api.UpgradeInput) (api.UpgradeStatus, error) {
	if err := workflow.Sleep(ctx, time.Second); err != nil {
		return api.UpgradeStatus{}, err
	}
	return upgrade.RuntimeUpgradeWorkflow(ctx, in)
}

// upgradeWithExtraActivity reads the ledger once more before the upgrade:
// every activity after it shifts by one.
func upgradeWithExtraActivity(ctx workflow.Context, in api.UpgradeInput) (api.UpgradeStatus, error) {
	if _, err := kernel.LedgerOf(in.Cluster).Read(ctx); err != nil {
		return api.UpgradeStatus{}, err
	}
	return upgrade.RuntimeUpgradeWorkflow(ctx, in)
}

// upgradeWithTimerForPreflight waits instead of reading the ledger first,
// then fails: the history's first command was an activity.
func upgradeWithTimerForPreflight(ctx workflow.Context, in api.UpgradeInput) (api.UpgradeStatus, error) {
	_ = workflow.Sleep(ctx, time.Minute)
	return api.UpgradeStatus{Cluster: in.Cluster}, nil
}

// upgradeWithVersionedTimer makes the extra-timer change the way the house
// rules say: behind workflow.GetVersion, so old histories take the old path.
func upgradeWithVersionedTimer(ctx workflow.Context, in api.UpgradeInput) (api.UpgradeStatus, error) {
	if workflow.GetVersion(ctx, "determinism-test-extra-timer", workflow.DefaultVersion, 1) == 1 {
		if err := workflow.Sleep(ctx, time.Second); err != nil {
			return api.UpgradeStatus{}, err
		}
	}
	return upgrade.RuntimeUpgradeWorkflow(ctx, in)
}
