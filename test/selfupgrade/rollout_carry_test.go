package selfupgrade_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/lab"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/selfupgrade"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/rackroll/rackroll/workflows/upgrade"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/workflow"
)

// upgradeOnC is build C's runtime upgrade: rackroll's, writing the carry
// of each move in a format (newer) no build of this code reads — as a
// release that changed what a carry means would, raising its minReader.
// newer is a carry format no build of this code reads.
const newer = selfupgrade.CarryFormat + 1

func upgradeOnC(ctx workflow.Context, in api.UpgradeInput) (api.UpgradeStatus, error) {
	st, err := upgrade.RuntimeUpgradeWorkflow(ctx, in)
	var can *workflow.ContinueAsNewError
	if !errors.As(err, &can) {
		return st, err
	}
	var next api.UpgradeInput
	if derr := converter.GetDefaultDataConverter().FromPayloads(can.Input, &next); derr != nil || next.Carry == nil {
		return st, err
	}
	next.Carry.Schema, next.Carry.MinReader = newer, newer
	return st, workflow.NewContinueAsNewErrorWithOptions(ctx, workflow.ContinueAsNewErrorOptions{InitialVersioningBehavior: can.InitialVersioningBehavior},
		api.RuntimeUpgradeWorkflowName, next)
}

// A rollback to a build older than the carry it finds, on the server: a
// default upgrade moves from A to C before rack2; C's carries need format
// 3; A made current again, the upgrade moves at the next rack boundary and
// A refuses C's carry — its workflow task fails naming both builds and
// both formats — and the run stays where it is: running, no rack started
// after the one C finished, no server touched, until a build that reads it
// is current.
func TestE2ERollbackRefusesANewerCarry(t *testing.T) {
	t.Parallel()
	timings := lab.FastTimings()
	timings.Reimage = model.Duration(10 * time.Second)
	env := e2e.Start(t, "../../examples/four-rack.yaml", e2e.Options{
		Drainage:    2 * time.Second,
		Timings:     timings,
		Mutate:      func(inv *model.Inventory) { e2e.KeepComputes(inv, 1, nil) },
		StartWorker: func(e *e2e.Env) { startSiteWorker(e); startBuild(e, "A"); makeCurrent(e, "A") },
	})
	id := api.UpgradeID(env.Cluster)
	ctx := env.Context(12 * time.Minute)
	zero := 0
	env.StartUpgradeWith(ctx, model.UpdateStrategy{WaitTimeMinutes: &zero})
	rackState := func(i int, want string) func() bool {
		return func() bool {
			st, ok := env.UpgradeStatus(ctx)
			return ok && st.Phase == api.PhaseCompute && st.Racks[i].State == want
		}
	}
	env.Eventually(8*time.Minute, "rack1 running", rackState(0, api.StateRunning))
	startBuild(env, "C", registered{api.RuntimeUpgradeWorkflowName, upgradeOnC})
	makeCurrent(env, "C")
	env.Eventually(3*time.Minute, "the upgrade on C", func() bool {
		_ = env.Client.SignalWorkflow(ctx, id, "", api.SignalSelfUpgrade, nil)
		b, _, _ := onBuild(env, id)
		return b == "C"
	})
	env.Eventually(3*time.Minute, "rack2 running on C", rackState(1, api.StateRunning))

	makeCurrent(env, "A") // the rollback
	var refused string
	env.Eventually(3*time.Minute, "A refuses C's carry", func() bool {
		_ = env.Client.SignalWorkflow(ctx, id, "", api.SignalSelfUpgrade, nil)
		// A task may also fail for a wake that came during it
		// (UnhandledCommand); the refusal is the one that names the carry.
		refused = failedTask(env, id)
		return strings.Contains(refused, "carried state")
	})
	require.Contains(t, refused, fmt.Sprintf("RuntimeUpgradeWorkflow: the carried state was written by build C (schema %d) and needs a build that reads carry format %d or later; this build A reads up to %d",
		newer, newer, selfupgrade.CarryFormat))
	reimaged := len(events(env, "reimage-start"))
	time.Sleep(15 * time.Second) // a rack's time: nothing moves meanwhile
	d, err := env.Client.DescribeWorkflowExecution(ctx, id, "")
	require.NoError(t, err)
	require.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, d.GetWorkflowExecutionInfo().GetStatus(), "the run stays where it is")
	require.Len(t, events(env, "reimage-start"), reimaged, "no server touched after C's rack")
}

// failedTask is the message of the last failed workflow task of workflow
// id's current run, "" when none failed.
func failedTask(e *e2e.Env, id string) string {
	msg := ""
	it := e.Client.GetWorkflowHistory(e.Context(time.Minute), id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			return ""
		}
		if a := ev.GetWorkflowTaskFailedEventAttributes(); a != nil {
			msg = a.GetFailure().GetMessage()
		}
	}
	return msg
}

// events are the lab's events of kind.
func events(e *e2e.Env, kind string) []string {
	var out []string
	for _, ev := range e.Events() {
		if ev.Kind == kind {
			out = append(out, ev.BMM)
		}
	}
	return out
}
