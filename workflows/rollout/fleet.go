package rollout

import (
	"fmt"
	"time"

	"github.com/rackroll/rackroll/activities/sites"
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/fleet"
	"github.com/rackroll/rackroll/internal/selfupgrade"
	"github.com/rackroll/rackroll/workflows/kernel"
	"go.temporal.io/sdk/workflow"
)

// sa names the fleet's activities by reference.
var sa *sites.Activities

// maxHistory is where a fleet's run continues as new at its next safe
// point: a rollout of weeks stays a few thousand events a run.
const maxHistory = 5000

// FleetWorkflow runs for as long as the fleet exists: idle until `fleet
// start` sends a release, then the rollout (roll), then idle again. It
// continues as new, carrying its status, when its history grows, and
// moves to a new current rackroll build at the same safe points: while
// idle, and between two reads of its sites.
func FleetWorkflow(ctx workflow.Context, in api.FleetInput) (api.FleetStatus, error) {
	if in.Carry != nil {
		kernel.TakeCarry(ctx, api.FleetWorkflowName, in.Carry.CarryHeader)
	}
	r := newRun(ctx, in)
	if err := r.handle(ctx); err != nil {
		return r.st, err
	}
	kernel.TakeWakes(ctx) // a wake's task shows a new build to an idle fleet
	for {
		if r.rolling() {
			if err := r.roll(ctx); err != nil {
				return r.st, err
			}
		}
		if err := workflow.Await(ctx, func() bool { return r.rolling() || r.continueDue(ctx) }); err != nil {
			return r.st, err
		}
		if r.continueDue(ctx) {
			return r.st, r.continueAsNew(ctx)
		}
	}
}

// run is one run's state.
type run struct {
	in  api.FleetInput
	st  api.FleetStatus
	now func() time.Time
	// wake is set by an update that changes what the rollout waits for.
	wake bool
	// cancelSites: the cancel asked for the sites' upgrades too.
	cancelSites bool
	// pauseSites: the pause asked for the running sites' upgrades too;
	// continueSites: the sites the fleet paused, to continue (steer.go).
	pauseSites    bool
	continueSites []string
}

func newRun(ctx workflow.Context, in api.FleetInput) *run {
	r := &run{in: in, now: func() time.Time { return workflow.Now(ctx) }}
	r.st = api.FleetStatus{Name: in.Spec.Name, Spec: in.Spec, State: fleet.StateIdle}
	if in.Carry != nil {
		r.st = in.Carry.Status
		r.in.Carry = nil
	}
	return r
}

// rolling: a rollout is in progress.
func (r *run) rolling() bool {
	return r.st.Rollout != nil && r.st.Rollout.FinishedAt == nil
}

// continueDue: the run should continue as new at this safe point — its
// history is long, the server suggests it, or another build is current.
func (r *run) continueDue(ctx workflow.Context) bool {
	info := workflow.GetInfo(ctx)
	// A word for the sites not passed on yet lives in this run only: it
	// is passed on first (steer).
	return workflow.AllHandlersFinished(ctx) && !r.pauseSites && len(r.continueSites) == 0 && (info.GetCurrentHistoryLength() > maxHistory ||
		info.GetContinueAsNewSuggested() || info.GetTargetWorkerDeploymentVersionChanged())
}

// continueAsNew hands the status to the next run, on the new current
// build when there is one.
func (r *run) continueAsNew(ctx workflow.Context) error {
	next := r.in
	next.Spec = r.st.Spec
	next.Carry = &api.FleetCarry{CarryHeader: kernel.CarryHeader(ctx), Status: r.st}
	next.Carry.Status.NextMove = ""
	if workflow.GetInfo(ctx).GetTargetWorkerDeploymentVersionChanged() {
		return workflow.NewContinueAsNewErrorWithOptions(ctx, workflow.ContinueAsNewErrorOptions{
			InitialVersioningBehavior: workflow.ContinueAsNewVersioningBehaviorAutoUpgrade}, FleetWorkflow, next)
	}
	return workflow.NewContinueAsNewError(ctx, FleetWorkflow, next)
}

// status is the query's answer: the state as of now, and where the run
// moves to a new build.
func (r *run) status(ctx workflow.Context) api.FleetStatus {
	st := r.st
	st.State = r.state()
	point := "while idle"
	if r.rolling() {
		point = "between two reads of its sites"
	}
	st.NextMove = selfupgrade.MoveNow(selfupgrade.Point{Name: point}, workflow.GetInfo(ctx).GetTargetWorkerDeploymentVersionChanged()).Why
	return st
}

// state is the fleet's state from its rollout.
func (r *run) state() string {
	ro := r.st.Rollout
	switch {
	case ro == nil:
		return fleet.StateIdle
	case ro.FinishedAt != nil && ro.Cancelled:
		return fleet.StateCancelled
	case ro.FinishedAt != nil:
		return fleet.StateCompleted
	case ro.Cancelled:
		return fleet.StateCancelling
	case ro.Halt != nil:
		return fleet.StateHalted
	case ro.Paused:
		return fleet.StatePaused
	case ro.BakeUntil != nil && r.now().Before(*ro.BakeUntil):
		return fleet.StateBaking
	}
	return fleet.StateRolling
}

// log adds a line to the rollout's log, keeping the newest MaxEvents.
func (r *run) log(site, format string, args ...any) {
	ro := r.st.Rollout
	ro.Events = append(ro.Events, fleet.Event{At: r.now(), Site: site, What: fmt.Sprintf(format, args...)})
	if n := len(ro.Events) - fleet.MaxEvents; n > 0 {
		ro.Events = ro.Events[n:]
	}
	r.st.State = r.state()
}

// tuning is the input's watch settings over the defaults.
func (r *run) tuning() (every, watchFor, unreachable time.Duration) {
	t := r.in.Tuning
	return or(t.WatchEvery, fleet.DefaultWatchEvery), or(t.WatchFor, fleet.DefaultWatchFor), or(t.UnreachableAfter, fleet.DefaultUnreachableAfter)
}

func or(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}
