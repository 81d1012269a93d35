package upgrade

import (
	"errors"
	"flag"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/workflow"
)

// `go test ./workflows/upgrade -run Carry -update-carry` records this
// build's move input as upgradeCarryFile (wftest/carry.go); a new format
// gets a new file, and no file is ever removed: a build rolled back to
// must read what a later one carried (docs/self-upgrade.md).
var updateCarry = flag.Bool("update-carry", false, "write this build's upgrade continue-as-new input to workflows/testdata/carry")

const upgradeCarryFile = "RuntimeUpgradeWorkflow-1.json"

// Every recorded upgrade carry is read by this build without losing a
// field, and the run taking it over waits at the carried pause, then
// finishes the racks after it and no other.
func TestUpgradeReadsEveryRecordedCarry(t *testing.T) {
	if *updateCarry {
		_, env := wftest.SiteEnv(t, wftest.Example("four-rack.yaml"))
		env.SetStartTime(time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)) // recorded carries do not change with the day
		env.RegisterDelayedCallback(func() { env.SetTargetWorkerDeploymentVersionChanged(true) }, time.Minute)
		env.ExecuteWorkflow(RuntimeUpgradeWorkflow, wftest.UpgradeInput(model.UpdateStrategy{StrategyType: model.StrategyPauseAfterRack}))
		var can *workflow.ContinueAsNewError
		require.True(t, errors.As(env.GetWorkflowError(), &can), "want a move, got %v", env.GetWorkflowError())
		require.NoError(t, wftest.WriteCarry(upgradeCarryFile, can.Input.Payloads[0]))
	}
	wftest.EachCarry(t, api.RuntimeUpgradeWorkflowName, func(t *testing.T, file string, old api.UpgradeInput) {
		require.NotNil(t, old.Carry, "%s has no carry", file)
		f, env := wftest.SiteEnv(t, wftest.Example("four-rack.yaml"))
		var paused []string
		wftest.EachPause(t, env, 400, func(st api.UpgradeStatus) {
			paused = append(paused, st.DetailedStatusMessage)
			wftest.SendUpdate(env, api.UpdateContinue, "c"+st.DetailedStatusMessage, &wftest.UpdateResult{}, nil)
		})
		env.ExecuteWorkflow(RuntimeUpgradeWorkflow, old)
		require.NoError(t, env.GetWorkflowError())
		require.NotEmpty(t, paused)
		require.Equal(t, old.Carry.PauseMessage, paused[0], "it waits at the carried pause first")
		after := reimagedRacks(f, 0)
		require.NotContains(t, after, old.Carry.PausedAt, "the racks up to the pause are not run again")
		require.NotEmpty(t, after, "the racks after it are")
	})
}
