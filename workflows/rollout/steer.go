package rollout

import (
	"time"

	"github.com/rackroll/rackroll/activities/sites"
	"github.com/rackroll/rackroll/internal/fleet"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// steer passes the operator's word on to the sites when asked: a pause
// with --sites asks the running sites' upgrades to pause before their
// next group or rack, and the fleet's continue withdraws that ask (taken
// or not) from those that took it — never a pause of a site's own. Only
// a run that received such a word sends anything.
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
			if err := r.tell(ctx, sa.PauseSites, r.pauseInput(running)).Get(ctx, &told); err != nil {
				r.log("", "pausing the sites' upgrades failed: %v", err)
			} else {
				r.log("", "asked the upgrades of %v to pause (refused by %v)", told.Took, told.Refused)
				if ro.Paused {
					ro.PausedSites = append(ro.PausedSites, told.Took...)
				} else { // continued while it was asking: withdrawn at once
					r.continueSites = append(r.continueSites, told.Took...)
				}
			}
		}
	}
	r.withdraw(ctx)
}

// withdraw takes the fleet's pause back from the sites it paused.
func (r *run) withdraw(ctx workflow.Context) {
	if len(r.continueSites) == 0 {
		return
	}
	paused := r.continueSites
	r.continueSites = nil
	var told sites.Told
	if err := r.tell(ctx, sa.ContinueSites, r.pauseInput(paused)).Get(ctx, &told); err != nil {
		r.log("", "continuing the sites' upgrades failed: %v (`starter upgrade continue` on each: %v)", err, paused)
		return
	}
	r.log("", "continued the upgrades of %v (refused by %v)", told.Took, told.Refused)
}

// pauseInput is the fleet's word to clusters: its reason is what the
// sites know the fleet's pause by.
func (r *run) pauseInput(clusters []string) sites.PauseInput {
	return sites.PauseInput{Clusters: clusters, Reason: "fleet " + r.st.Name + " paused"}
}

// tell runs one activity that sends an Update to sites' upgrades: one
// attempt within two minutes (a second would find the first's effect and
// be refused); the answer is each Update's, and what follows shows in
// the sites' verdicts.
func (r *run) tell(ctx workflow.Context, activity, arg any) workflow.Future {
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 2 * time.Minute,
		RetryPolicy: &temporal.RetryPolicy{MaximumAttempts: 1}})
	return workflow.ExecuteActivity(actx, activity, arg)
}
