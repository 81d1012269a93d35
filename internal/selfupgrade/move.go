package selfupgrade

import "fmt"

// Point is where a long run is when it asks whether to move to another
// build (docs/self-upgrade-moves.md#moving-at-a-safe-point).
type Point struct {
	// Name says where, for the status message: "between racks", "pause",
	// "wait timer", "history trim", "between rounds".
	Name string
	// Children is how many child workflows of the run are still running: a
	// child runs on the run's build, and a move would leave the next run
	// waiting on it.
	Children int
	// Activities is how many of the run's activities are in flight: their
	// results would come back to a run that has ended.
	Activities int
	// HandlersRunning: an Update or signal handler has not finished; the
	// caller's Update would be lost with the run.
	HandlersRunning bool
}

// Move is the decision at a point.
type Move struct {
	Now bool
	// Why is the status line: empty when no other build is the target.
	Why string
}

// MoveNow decides whether a run at p continues as new onto the target
// build. targetChanged is the server's word for this workflow task
// (workflow.GetInfo(ctx).GetTargetWorkerDeploymentVersionChanged()): the
// deployment's current version, or the ramping one for this run, is not
// the build the run is pinned to. A run moves only where nothing of it is
// in flight; otherwise it says what it waits for and asks again at its
// next point.
func MoveNow(p Point, targetChanged bool) Move {
	if !targetChanged {
		return Move{}
	}
	var waiting string
	switch {
	case p.Children > 0:
		waiting = fmt.Sprintf("child workflows still running: %d", p.Children)
	case p.Activities > 0:
		waiting = fmt.Sprintf("activities in flight: %d", p.Activities)
	case p.HandlersRunning:
		waiting = "an update or signal handler still running"
	}
	if waiting != "" {
		return Move{Why: fmt.Sprintf("a new rackroll build is current; moving to it at the next safe point (%s: %s)", p.Name, waiting)}
	}
	return Move{Now: true, Why: fmt.Sprintf("a new rackroll build is current; moving to it by continue-as-new (%s)", p.Name)}
}
