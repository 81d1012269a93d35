package rollout

import (
	"errors"
	"fmt"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/fleet"
	"github.com/rackroll/rackroll/internal/model"
	"go.temporal.io/sdk/workflow"
)

// handle registers the fleet's query and updates. Each validator refuses
// before anything is written (a refused update leaves no event); each
// handler only changes the run's state: the main loop acts on it.
func (r *run) handle(ctx workflow.Context) error {
	if err := workflow.SetQueryHandler(ctx, api.QueryStatus, func() (api.FleetStatus, error) { return r.status(ctx), nil }); err != nil {
		return err
	}
	updates := []struct {
		name     string
		handler  any
		validate any
	}{
		{api.UpdateFleetSpec, r.setSpec, r.checkSpec},
		{api.UpdateFleetStart, r.start, r.checkStart},
		{api.UpdateFleetPause, r.pause, r.checkPause},
		{api.UpdateContinue, r.continueRollout, r.checkContinue},
		{api.UpdateCancel, r.cancel, r.checkCancel},
	}
	for _, u := range updates {
		if err := workflow.SetUpdateHandlerWithOptions(ctx, u.name, u.handler, workflow.UpdateHandlerOptions{Validator: u.validate}); err != nil {
			return err
		}
	}
	return nil
}

// checkSpec: a spec is replaced only while no rollout runs, and must be a
// fleet's (the starter also checks its clusters are registered).
func (r *run) checkSpec(_ workflow.Context, req api.FleetSpecRequest) error {
	if r.rolling() {
		return r.busy("its spec changes")
	}
	if req.Spec.Name != r.st.Name {
		return fmt.Errorf("spec name %q: this fleet is %q", req.Spec.Name, r.st.Name)
	}
	return fleet.Check(req.Spec, req.Spec.Clusters)
}

func (r *run) setSpec(_ workflow.Context, req api.FleetSpecRequest) (api.FleetStatus, error) {
	r.st.Spec = req.Spec
	return r.st, nil
}

// checkStart: one rollout at a time, of a version and strategy a site's
// upgrade would take.
func (r *run) checkStart(_ workflow.Context, req api.FleetStartRequest) error {
	if r.rolling() {
		return r.busy("another starts")
	}
	var errs []error
	if _, err := model.ParseVersion(req.TargetVersion); err != nil {
		errs = append(errs, fmt.Errorf("targetVersion %q: %w", req.TargetVersion, err))
	}
	if err := req.UpdateStrategy.Validate(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// start begins a rollout: its waves are the spec's plan, every site
// pending.
func (r *run) start(ctx workflow.Context, req api.FleetStartRequest) (api.FleetStatus, error) {
	ro := &api.FleetRollout{Request: req, Waves: fleet.Plan(r.st.Spec), StartedAt: workflow.Now(ctx)}
	for w, wave := range ro.Waves {
		for _, c := range wave.Sites {
			ro.Sites = append(ro.Sites, fleet.Site{Cluster: c, Wave: w, Verdict: fleet.Pending})
		}
	}
	r.st.Rollout, r.cancelSites = ro, false
	r.log("", "rollout of %s started by %s: %d sites in %d waves", req.TargetVersion, by(req.By), len(ro.Sites), len(ro.Waves))
	return r.status(ctx), nil
}

func (r *run) checkPause(_ workflow.Context, req api.FleetPauseRequest) error {
	switch {
	case !r.rolling():
		return r.notRolling("paused")
	case r.st.Rollout.Paused && !req.Sites:
		return fmt.Errorf("fleet %s is already paused: continue-update goes on", r.st.Name)
	}
	return nil
}

func (r *run) pause(ctx workflow.Context, req api.FleetPauseRequest) (api.FleetStatus, error) {
	r.st.Rollout.Paused, r.pauseSites, r.wake = true, req.Sites, true
	what := "running sites go on"
	if req.Sites {
		what = "running sites' upgrades pause before their next group or rack"
	}
	r.log("", "paused by %s: no new site starts; %s", by(req.By), what)
	return r.status(ctx), nil
}

// checkContinue: continue is the operator's word past a pause or a halt.
func (r *run) checkContinue(workflow.Context) error {
	switch {
	case !r.rolling():
		return r.notRolling("continued")
	case !r.st.Rollout.Paused && r.st.Rollout.Halt == nil:
		return fmt.Errorf("fleet %s is neither paused nor halted (%s)", r.st.Name, r.state())
	}
	return nil
}

// continueRollout lifts the pause and the halt: every site whose verdict
// halts now is acknowledged — it halts no more and no longer holds its
// wave, until its verdict changes.
func (r *run) continueRollout(ctx workflow.Context) (api.FleetStatus, error) {
	ro := r.st.Rollout
	var acked []string
	for i := range ro.Sites {
		if s := &ro.Sites[i]; fleet.Halts(s.Verdict) && !s.Acknowledged {
			s.Acknowledged = true
			acked = append(acked, s.Cluster)
		}
	}
	ro.Paused, ro.Halt, r.wake = false, nil, true
	r.continueSites, ro.PausedSites = ro.PausedSites, nil
	if len(acked) > 0 {
		r.log("", "continued past %v: acknowledged, they hold the rollout no longer", acked)
	} else {
		r.log("", "continued")
	}
	return r.status(ctx), nil
}

func (r *run) checkCancel(_ workflow.Context, req api.FleetCancelRequest) error {
	if !r.rolling() {
		return r.notRolling("cancelled")
	}
	return nil
}

// cancel ends the rollout at its next safe point: a wave being started is
// started whole first, so that no site is half-started.
func (r *run) cancel(ctx workflow.Context, req api.FleetCancelRequest) (api.FleetStatus, error) {
	r.st.Rollout.Cancelled, r.cancelSites, r.wake = true, req.Sites, true
	what := "running sites go on"
	if req.Sites {
		what = "running sites' upgrades are cancelled too"
	}
	r.log("", "cancelled by %s: no new site starts; %s", by(req.By), what)
	return r.status(ctx), nil
}

func (r *run) busy(what string) error {
	ro := r.st.Rollout
	return fmt.Errorf("fleet %s is rolling out %s (%s): its rollout ends (or is cancelled) before %s",
		r.st.Name, ro.Request.TargetVersion, r.state(), what)
}

func (r *run) notRolling(what string) error {
	return fmt.Errorf("fleet %s has no rollout in progress to be %s (%s)", r.st.Name, what, r.state())
}

func by(who string) string {
	if who == "" {
		return "the operator"
	}
	return who
}
