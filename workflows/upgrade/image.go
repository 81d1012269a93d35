package upgrade

import (
	"time"

	"github.com/rackroll/rackroll/activities/image"
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/temporalerr"
	"github.com/rackroll/rackroll/workflows/kernel"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

var ia *image.Activities

// imageCheckLimit bounds the image preflight, retries included: a call
// that answers at once, twice over (a HEAD through the site's proxy), or
// the table's imageCheck when the whole image is read for its checksum.
// Runs started before the table bounded it had 2 and 30 minutes, the same.
func imageCheckLimit(in api.ServerInput, whole bool) time.Duration {
	switch {
	case in.Limits == nil && whole:
		return 30 * time.Minute
	case in.Limits == nil:
		return 2 * time.Minute
	case whole:
		return in.Limits.OrDefaults().ImageCheck.Std()
	}
	return 2 * in.Limits.OrDefaults().Call.Std()
}

// checkImage is the image preflight (docs/behaviour-upgrade.md#guards): before any
// server is touched, the site's worker asks for the image the BMCs will
// mount (and reads it when the inventory gives its checksum). It returns
// the refusal, or "" when the image is there.
func (u *upgrade) checkImage(ctx workflow.Context, cs api.ClusterState) string {
	sum := cs.ImageSHA256[u.in.TargetVersion]
	limit := imageCheckLimit(u.server, sum != "")
	opts := workflow.ActivityOptions{
		ScheduleToCloseTimeout: limit,
		HeartbeatTimeout:       kernel.CallAttempt(ctx, limitsOf(u.server), 1), // a worker that died is noticed within a call
		Summary:                "Check image " + u.server.ImageURL,
		RetryPolicy:            &temporal.RetryPolicy{MaximumInterval: 10 * time.Second, MaximumAttempts: 3},
	}
	in := image.CheckInput{URL: u.server.ImageURL, SHA256: sum}
	var fut workflow.Future
	if sum == "" {
		// A HEAD, answered within a call: a local activity where the run
		// makes local calls (kernel.SiteRead). Reading the whole image for
		// its checksum takes minutes and heartbeats: always the activity.
		fut = kernel.SiteRead(ctx, cs.SiteTaskQueue, opts, ia.CheckImage, in)
	} else {
		fut = workflow.ExecuteActivity(kernel.OnSite(workflow.WithActivityOptions(ctx, opts), cs.SiteTaskQueue), ia.CheckImage, in)
	}
	var c api.ImageCheck
	err := fut.Get(ctx, &c)
	if err != nil {
		c = api.ImageCheck{URL: u.server.ImageURL, Answer: "no answer: " + temporalerr.Message(err)}
	}
	u.st.Image = &c
	u.show(ctx)
	return c.Refusal()
}
