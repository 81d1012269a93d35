package rollout

import (
	"time"

	"github.com/rackroll/rackroll/activities/sites"
	"github.com/rackroll/rackroll/internal/fleet"
	"go.temporal.io/sdk/workflow"
)

// steer passes the operator's word on to the sites when asked: a pause
// with --sites pauses the running sites' upgrades before their next
// group or rack, and the fleet's continue continues those it paused.
// Only a run that received such a word sends anything.
func (r *run) steer(ctx workflow.Context) {
	ro := r.st.Rollout
	if r.pauseSites {
		r.pauseSites = false
		var running []string
		for _, s := range ro.Sites {
			if s.Verdict == fleet.Running {
				running = append(running, s.Cluster)
			}
		}
		if len(running) > 0 {
			var told sites.Told
			in := sites.PauseInput{Clusters: running, Reason: "fleet " + r.st.Name + " paused"}
			if err := r.tell(ctx, sa.PauseSites, in).Get(ctx, &told); err != nil {
				r.log("", "pausing the sites' upgrades failed: %v", err)
			} else {
				ro.PausedSites = append(ro.PausedSites, told.Took...)
				r.log("", "asked the upgrades of %v to pause (refused by %v)", told.Took, told.Refused)
			}
		}
	}
	if len(r.continueSites) > 0 {
		paused := r.continueSites
		r.continueSites = nil
		var told sites.Told
		if err := r.tell(ctx, sa.ContinueSites, paused).Get(ctx, &told); err != nil {
			r.log("", "continuing the sites' upgrades failed: %v", err)
		} else {
			r.log("", "continued the upgrades of %v (refused by %v)", told.Took, told.Refused)
		}
	}
}

// tell runs one activity that sends an Update to sites' upgrades: once,
// within two minutes; the answer is each Update's, and what follows shows
// in the sites' verdicts.
func (r *run) tell(ctx workflow.Context, activity, arg any) workflow.Future {
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 2 * time.Minute})
	return workflow.ExecuteActivity(actx, activity, arg)
}
