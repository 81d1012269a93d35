package kernel

import (
	"github.com/rackroll/rackroll/internal/selfupgrade"
	"go.temporal.io/sdk/workflow"
)

// A long run hands its state to the next across continue-as-new, and the
// next may run on another build: the new one after a move, an older one
// after a rollback (docs/self-upgrade-moves.md#moving-at-a-safe-point). Each
// carry says its format and the build that wrote it.

// CarryHeader is the header of the carry this run writes now.
func CarryHeader(ctx workflow.Context) selfupgrade.CarryHeader {
	return selfupgrade.Written(workflow.GetInfo(ctx).GetCurrentBuildID())
}

// TakeCarry refuses a carry this build cannot read by failing the
// workflow task (a panic, which the worker's default policy turns into a
// failed task, retried): the run stays where it is, its history unchanged,
// and the error names both builds, until a build that reads it is
// current. It issues no command.
func TakeCarry(ctx workflow.Context, workflowType string, h selfupgrade.CarryHeader) {
	if err := selfupgrade.CheckCarry(workflowType, h, selfupgrade.CarryFormat, workflow.GetInfo(ctx).GetCurrentBuildID()); err != nil {
		panic(err)
	}
}
