package main

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/rackroll/rackroll/internal/selfupgrade"
)

// The pure decisions of `self-upgrade rollout` and `rollback`
// (docs/self-upgrade-rollout.md#rollout-ramp-rollback-built): what the flags allow, what
// a command changes in the deployment, which runs are not yet where they
// should be and what to tell the operator while waiting.

// rolloutFlags is what rollout and rollback are given.
type rolloutFlags struct {
	build, deployment string
	ramp              int
	rampSet           bool // --ramp given: 0 is then a mistake, not "no ramp"
	wait, drainWait   time.Duration
	scaleDown         string // NAMESPACE/DEPLOYMENT of the drained build's workers
	kubeconfig        string
}

// check refuses bad flags before anything connects, naming each flag, its
// value and what is allowed; every problem at once.
func (f rolloutFlags) check(rollback bool) error {
	var errs []error
	switch {
	case f.build == "" && !rollback:
		errs = append(errs, errors.New("--build is required: the build ID of the workers to roll out (their TEMPORAL_WORKER_BUILD_ID)"))
	case f.build != "":
		if err := selfupgrade.ValidBuildID(f.build); err != nil {
			errs = append(errs, fmt.Errorf("--build: %w", err))
		}
	}
	if err := selfupgrade.ValidDeploymentName(f.deployment); err != nil {
		errs = append(errs, fmt.Errorf("--deployment: %w", err))
	}
	if f.rampSet && (f.ramp < 1 || f.ramp > 99) {
		errs = append(errs, fmt.Errorf("--ramp %d: must be 1..99 (the percent of new runs and moves sent to the build); leave --ramp out to make the build current", f.ramp))
	}
	if f.wait <= 0 {
		errs = append(errs, fmt.Errorf("--wait %v: must be above 0 (how long every long run has to reach the build, e.g. 15m)", f.wait))
	}
	if f.drainWait <= 0 {
		errs = append(errs, fmt.Errorf("--drain-wait %v: must be above 0 (how long the previous build has to drain, e.g. 10m)", f.drainWait))
	}
	if f.scaleDown != "" {
		if _, err := parseScaleDown(f.scaleDown); err != nil {
			errs = append(errs, err)
		}
		if f.rampSet {
			errs = append(errs, fmt.Errorf("--scale-down %s with --ramp %d: a ramp drains no build, so nothing would be scaled down", f.scaleDown, f.ramp))
		}
	}
	return errors.Join(errs...)
}

// deploymentView is a Worker Deployment as the commands need it. Build IDs
// only: "" is the unversioned workers.
type deploymentView struct {
	Name             string
	Current, Ramping string
	RampPercent      float32
	Versions         []versionView // newest first, as the server lists them
	token            []byte        // the conflict token of this describe
}

type versionView struct {
	Build    string
	Created  time.Time
	Drainage string // "draining", "drained", "" while current, ramping or never used
}

// routing says what the deployment does with a version: current, ramping
// at a share, draining, drained, or inactive (never current, or current
// before the server kept drainage for it).
func (v deploymentView) routing(build string) string {
	switch build {
	case v.Current:
		return "current"
	case v.Ramping:
		return fmt.Sprintf("ramping %g%%", v.RampPercent)
	}
	for _, x := range v.Versions {
		if x.Build == build && x.Drainage != "" {
			return x.Drainage
		}
	}
	return "inactive"
}

// change is what a command does to the deployment and then waits for.
type change struct {
	Build    string // the build the long runs go to
	Ramp     int    // > 0: Build ramps at Ramp % instead of becoming current
	StopRamp bool   // Build is current already: remove the ramp of Drains
	Drains   string // the build the runs leave, awaited Drained; "" none
	Nothing  string // set: nothing to do, and why
	// Already: Build is current already (the rollout run again, after its
	// --wait ran out): nothing is routed, the runs are woken and awaited.
	Already bool
}

// planRollout: --build B becomes current (or ramps at --ramp), and the
// build current before drains.
//
// Run again for the build it made current (its --wait ran out, a run was
// left behind), it routes nothing and waits again, for the runs and for
// the build current before it (lastCurrent) to drain: running it again
// converges.
func planRollout(v deploymentView, build string, ramp int, lastCurrent map[string]time.Time) change {
	switch {
	case v.Current == build && ramp == 0:
		return change{Build: build, Already: true, Drains: previousBuild(v, lastCurrent)}
	case v.Current == build:
		return change{Nothing: fmt.Sprintf("build %s is already current in deployment %s: nothing to do (`starter self-upgrade status` shows each run's build; `wake` moves a run that waits)", build, v.Name)}
	case ramp > 0 && v.Ramping == build && v.RampPercent == float32(ramp):
		return change{Nothing: fmt.Sprintf("build %s already ramps at %d %% in deployment %s: nothing to do", build, ramp, v.Name)}
	case ramp > 0:
		return change{Build: build, Ramp: ramp}
	}
	return change{Build: build, Drains: v.Current}
}

// planRollback goes back to --build, else to the build current before
// this one (lastCurrent: when each version last became current, from the
// server), or, while a build ramps, removes the ramp.
func planRollback(v deploymentView, build string, lastCurrent map[string]time.Time) (change, error) {
	if v.Ramping != "" && (build == "" || build == v.Current) {
		if v.Current == "" {
			return change{}, fmt.Errorf("deployment %s ramps build %s from unversioned workers: no build to roll back to; `temporal worker deployment set-ramping-version --deployment-name %s --delete` removes the ramp", v.Name, v.Ramping, v.Name)
		}
		return change{Build: v.Current, StopRamp: true, Drains: v.Ramping}, nil
	}
	if build == "" {
		build = previousBuild(v, lastCurrent)
		if build == "" {
			return change{}, fmt.Errorf("--build is required: deployment %s has no earlier current build on record (versions: %s)", v.Name, strings.Join(v.builds(), ", "))
		}
	}
	if build == v.Current {
		return change{Nothing: fmt.Sprintf("build %s is already current in deployment %s: nothing to roll back", build, v.Name)}, nil
	}
	return change{Build: build, Drains: v.Current}, nil
}

// previousBuild is the version other than the current one that was
// current last: "" when none was.
func previousBuild(v deploymentView, lastCurrent map[string]time.Time) string {
	best, at := "", time.Time{}
	for _, x := range v.Versions {
		if t := lastCurrent[x.Build]; x.Build != v.Current && !t.IsZero() && t.After(at) {
			best, at = x.Build, t
		}
	}
	return best
}

func (v deploymentView) builds() []string {
	out := make([]string, 0, len(v.Versions))
	for _, x := range v.Versions {
		out = append(out, x.Build)
	}
	return out
}

// versionName is a build as buildOf writes a run's build.
func versionName(deployment, build string) string { return deployment + ":" + build }

// pending is the running runs not on target ("rackroll:B"): the ones the
// command still waits for.
func pending(rows []runBuild, target string) []runBuild {
	var out []runBuild
	for _, r := range rows {
		if r.State == enumsRunning && r.Build != target {
			out = append(out, r)
		}
	}
	return out
}

// pendingList names each pending run with its build, for the error.
func pendingList(rows []runBuild) string {
	parts := make([]string, len(rows))
	for i, r := range rows {
		parts[i] = r.ID + " (" + r.Build + ")"
	}
	return strings.Join(parts, ", ")
}

// progressLines are the changes since the last look, one line a run whose
// build or state changed, in ID order; seen is updated. A run seen for the
// first time is not a change: the table printed first shows it.
func progressLines(seen map[string]string, rows []runBuild, first bool) []string {
	var lines []string
	for _, r := range rows {
		now := r.Build
		if r.State != enumsRunning {
			now = r.State
		}
		before, ok := seen[r.ID]
		seen[r.ID] = now
		switch {
		case !ok && !first && r.State == enumsRunning:
			lines = append(lines, fmt.Sprintf("%s: running on %s", r.ID, now))
		case ok && before != now:
			lines = append(lines, fmt.Sprintf("%s: %s -> %s", r.ID, before, now))
		}
	}
	sort.Strings(lines)
	return lines
}

// nextMoveLine is what a runtime upgrade's status says about its next
// move (the status's nextMove: a run mid-rack moves at its next rack
// boundary), when it says something new; status is the status query's
// answer as JSON, so this reads builds with the field and without.
func nextMoveLine(id string, status map[string]any, said map[string]string) string {
	s, _ := status["nextMove"].(string)
	if s == "" || said[id] == s {
		return ""
	}
	said[id] = s
	return id + ": next move: " + s
}

// wakeDelay is how long after the n-th wake (from 0) the runs still
// pending are woken again: soon at first, since a wake that came before
// the routing change reached the task queue is not seen as one, then
// every 30 s.
func wakeDelay(n int) time.Duration {
	return min(2*time.Second<<min(n, 5), 30*time.Second)
}

// clusterOf is the cluster a ledger's workflow ID names; "" for another ID.
func clusterOf(ledgerID string) string {
	name, ok := strings.CutPrefix(ledgerID, ledgerPrefix)
	if !ok {
		return ""
	}
	return name
}

// addClusters merges names into known, keeping it sorted: a cluster seen
// once stays, so a ledger missing from one visibility answer (between its
// runs) is not taken for a cluster without runs.
func addClusters(known []string, names ...string) []string {
	for _, n := range names {
		if n != "" && !slices.Contains(known, n) {
			known = append(known, n)
		}
	}
	sort.Strings(known)
	return known
}
