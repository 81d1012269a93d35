package kernel

import (
	"github.com/rackroll/rackroll/internal/api"
	"go.temporal.io/sdk/workflow"
)

// TakeWakes takes the self-upgrade signal for the rest of the run. The
// signal's only effect is the workflow task it makes: on it a run that
// waits sees a new current build and moves at its safe point
// (docs/self-upgrade-moves.md#waking-a-run-that-waits). It issues no command.
func TakeWakes(ctx workflow.Context) {
	workflow.Go(ctx, func(ctx workflow.Context) {
		ch := workflow.GetSignalChannel(ctx, api.SignalSelfUpgrade)
		for {
			ch.Receive(ctx, nil)
		}
	})
}
