package rollout

import (
	"slices"
	"time"

	"github.com/rackroll/rackroll/activities/sites"
	"github.com/rackroll/rackroll/internal/fleet"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// roll takes the rollout wave by wave: it starts a wave's sites when
// neither paused nor halted, follows them until each is done, bakes, and
// goes on; whatever it waits for, it keeps reading the sites it started.
// It returns when the rollout ended, or at a safe point where the run
// continues as new (continueDue: the caller asks again).
func (r *run) roll(ctx workflow.Context) error {
	ro := r.st.Rollout
	for ro.Wave < len(ro.Waves) && !ro.Cancelled {
		r.steer(ctx)
		started := r.started(ro.Wave)
		switch {
		case r.continueDue(ctx):
			return nil
		case !started && r.free():
			if err := r.startWave(ctx); err != nil {
				return err
			}
		case started && r.waveDone() && r.baked(ctx) && r.free():
			r.log("", "wave %d of %d done", ro.Wave+1, len(ro.Waves))
			ro.Wave, ro.BakeUntil = ro.Wave+1, nil
		default:
			if err := r.watch(ctx); err != nil {
				return err
			}
		}
	}
	return r.finish(ctx)
}

// free: nothing holds the next start — no pause, no halt.
func (r *run) free() bool {
	return !r.st.Rollout.Paused && r.st.Rollout.Halt == nil
}

// started: wave w's sites were started (a site of it is no longer pending).
func (r *run) started(w int) bool {
	for _, s := range r.st.Rollout.Sites {
		if s.Wave == w && s.Verdict != fleet.Pending {
			return true
		}
	}
	return false
}

// waveDone: every site of the current wave is done.
func (r *run) waveDone() bool {
	ro := r.st.Rollout
	for _, s := range ro.Sites {
		if s.Wave == ro.Wave && !s.Done() {
			return false
		}
	}
	return true
}

// baked: the finished wave has run its bake (none after the last); the
// bake's clock starts when the wave is done.
func (r *run) baked(ctx workflow.Context) bool {
	ro := r.st.Rollout
	bake := time.Duration(ro.Waves[ro.Wave].BakeMinutes) * time.Minute
	if bake <= 0 {
		return true
	}
	if ro.BakeUntil == nil {
		until := workflow.Now(ctx).Add(bake)
		ro.BakeUntil = &until
		r.log("", "wave %d done: baking until %s", ro.Wave+1, until.UTC().Format(time.RFC3339))
	}
	return !workflow.Now(ctx).Before(*ro.BakeUntil)
}

// startWave starts the current wave's sites in one activity that is never
// cancelled: a cancel or a move meanwhile waits for it, so that every
// site is either started and followed or not started at all.
func (r *run) startWave(ctx workflow.Context) error {
	ro := r.st.Rollout
	var names []string
	for _, s := range ro.Sites {
		if s.Wave == ro.Wave {
			names = append(names, s.Cluster)
		}
	}
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 5 * time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{MaximumInterval: time.Minute},
	})
	var got []sites.Started
	if err := workflow.ExecuteActivity(actx, sa.StartSites, sites.StartInput{Fleet: r.st.Name, Sites: names, Request: ro.Request}).Get(ctx, &got); err != nil {
		return err
	}
	r.log("", "wave %d of %d started: %v", ro.Wave+1, len(ro.Waves), names)
	now := workflow.Now(ctx)
	for _, g := range got {
		// A site refused or already current was not started: it is not
		// followed (a refused one halts until acknowledged).
		if s := r.site(g.Cluster); g.RunID != "" {
			s.RunID, s.StartedAt = g.RunID, &now
		}
		r.apply(g.Reading)
	}
	return nil
}

// watch reads the followed sites once — a long read that returns on a
// change — cut short by an update or a new build; when nothing changed
// and the read was quick, it waits WatchEvery before the next.
func (r *run) watch(ctx workflow.Context) error {
	ro := r.st.Rollout
	every, watchFor, unreachable := r.tuning()
	if ro.BakeUntil != nil {
		watchFor = max(min(watchFor, ro.BakeUntil.Sub(workflow.Now(ctx))), time.Second)
	}
	in := sites.WatchInput{Every: every, For: watchFor, UnreachableAfter: unreachable}
	for _, s := range ro.Sites {
		if s.StartedAt != nil {
			in.Sites = append(in.Sites, sites.Followed{Cluster: s.Cluster, Target: ro.Request.TargetVersion})
			in.Known = append(in.Known, fleet.Reading{Cluster: s.Cluster, Verdict: s.Verdict, Detail: s.Detail, SilentSince: s.SilentSince})
		}
	}
	if len(in.Sites) == 0 {
		return r.sleep(ctx, every)
	}
	r.wake = false
	wctx, cancel := workflow.WithCancel(ctx)
	defer cancel()
	wctx = workflow.WithActivityOptions(wctx, workflow.ActivityOptions{
		StartToCloseTimeout: watchFor + 2*time.Minute,
		HeartbeatTimeout:    every + time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{MaximumInterval: time.Minute},
	})
	began := workflow.Now(ctx)
	f := workflow.ExecuteActivity(wctx, sa.WatchSites, in)
	if err := workflow.Await(ctx, func() bool { return f.IsReady() || r.wake || r.continueDue(ctx) }); err != nil {
		return err
	}
	if !f.IsReady() {
		cancel() // an update or a move: the loop acts on it, then reads again
		return nil
	}
	var got []fleet.Reading
	if err := f.Get(ctx, &got); err != nil {
		return err
	}
	changed := false
	for _, g := range got {
		changed = r.apply(g) || changed
	}
	if !changed && workflow.Now(ctx).Sub(began) < every {
		return r.sleep(ctx, every)
	}
	return nil
}

// sleep waits d, cut short by an update or a new build.
func (r *run) sleep(ctx workflow.Context, d time.Duration) error {
	r.wake = false
	_, err := workflow.AwaitWithTimeout(ctx, d, func() bool { return r.wake || r.continueDue(ctx) })
	return err
}

// apply takes a site's reading: its verdict, the halt it makes, and the
// log line. It reports whether the verdict changed.
func (r *run) apply(g fleet.Reading) bool {
	s := r.site(g.Cluster)
	if s == nil || g.Same(fleet.Reading{Cluster: s.Cluster, Verdict: s.Verdict, Detail: s.Detail, SilentSince: s.SilentSince}) {
		return false
	}
	was := s.Verdict
	s.Verdict, s.Detail, s.SilentSince = g.Verdict, g.Detail, g.SilentSince
	if !fleet.Halts(g.Verdict) {
		s.Acknowledged = false
	}
	if g.Verdict == fleet.Succeeded || g.Verdict == fleet.Failed || g.Verdict == fleet.Cancelled {
		now := r.now()
		s.FinishedAt = &now
	}
	if was != g.Verdict {
		r.log(s.Cluster, "%s → %s%s", was, g.Verdict, detail(g.Detail))
	}
	ro := r.st.Rollout
	if fleet.Halts(g.Verdict) && !s.Acknowledged && ro.Halt == nil {
		ro.Halt = &fleet.Halt{Site: s.Cluster, Verdict: g.Verdict, Reason: g.Detail, At: r.now()}
		r.log(s.Cluster, "halted: no new site starts until continue-update")
	}
	return true
}

func (r *run) site(cluster string) *fleet.Site {
	ro := r.st.Rollout
	if i := slices.IndexFunc(ro.Sites, func(s fleet.Site) bool { return s.Cluster == cluster }); i >= 0 {
		return &ro.Sites[i]
	}
	return nil
}

// finish ends the rollout: completed, or cancelled — then, when asked,
// with every running site's upgrade cancelled too.
func (r *run) finish(ctx workflow.Context) error {
	ro := r.st.Rollout
	if ro.Cancelled && r.cancelSites {
		var running []string
		for _, s := range ro.Sites {
			if s.Verdict == fleet.Running || s.Verdict == fleet.Waiting || s.Verdict == fleet.Paused {
				running = append(running, s.Cluster)
			}
		}
		var refused []string
		if err := r.tell(ctx, sa.CancelSites, running).Get(ctx, &refused); err != nil {
			r.log("", "cancelling the sites' upgrades failed: %v", err)
		} else if len(running) > 0 {
			r.log("", "asked the upgrades of %v to cancel (refused by %v)", running, refused)
		}
	}
	if !r.cancelSites {
		// Ended without its sites' cancel: the sites it paused go on, as
		// the running ones do.
		r.continueSites = append(r.continueSites, ro.PausedSites...)
		r.withdraw(ctx)
	}
	ro.PausedSites = nil
	now := workflow.Now(ctx)
	ro.FinishedAt, ro.BakeUntil = &now, nil
	if ro.Cancelled {
		r.log("", "rollout of %s cancelled", ro.Request.TargetVersion)
	} else {
		r.log("", "rollout of %s completed", ro.Request.TargetVersion)
	}
	return nil
}

func detail(d string) string {
	if d == "" {
		return ""
	}
	return ": " + d
}
