package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/selfupgrade"
	"github.com/spf13/cobra"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"k8s.io/client-go/kubernetes"
)

// `self-upgrade rollout` and `rollback` (docs/self-upgrade-rollout.md#rollout-ramp-rollback-built):
// check the build's workers poll, change the deployment's routing, wake
// every long run of every registered cluster until each is on the build,
// then wait for the build the runs left to drain.

// pollEvery is how often the runs and the drainage are read while waiting.
const pollEvery = 3 * time.Second

func addRolloutFlags(cmd *cobra.Command, f *rolloutFlags, rollback bool) {
	build := "build ID to roll out (its workers' TEMPORAL_WORKER_BUILD_ID); required"
	if rollback {
		build = "build ID to go back to; default: the build current before the current one (or, while a build ramps, the current one: the ramp is removed)"
	}
	cmd.Flags().StringVar(&f.build, "build", "", build)
	cmd.Flags().StringVar(&f.deployment, "deployment", selfupgrade.DefaultDeployment, "Worker Deployment of rackroll's workers (their TEMPORAL_DEPLOYMENT_NAME)")
	cmd.Flags().DurationVar(&f.wait, "wait", 15*time.Minute, "how long every long run of every cluster has to reach the build")
	cmd.Flags().DurationVar(&f.drainWait, "drain-wait", 10*time.Minute, "how long the build the runs left has to report Drained (the server checks every few minutes)")
	cmd.Flags().StringVar(&f.scaleDown, "scale-down", "", "NAMESPACE/DEPLOYMENT: once the build the runs left drained, scale this Kubernetes Deployment (its workers) to 0")
	cmd.Flags().StringVar(&f.kubeconfig, "kubeconfig", "", "kubeconfig for --scale-down (default: in a pod its ServiceAccount, else $KUBECONFIG or ~/.kube/config)")
	if !rollback {
		cmd.Flags().IntVar(&f.ramp, "ramp", 0, "ramp the build at this percent (1..99) instead of making it current; returns after the wake")
	}
}

func (a *app) selfUpgradeRolloutCmd() *cobra.Command {
	f := &rolloutFlags{}
	var cmd *cobra.Command
	check := func() error {
		f.rampSet = cmd.Flags().Changed("ramp")
		return f.check(false)
	}
	cmd = a.clientCmd("rollout --build B", "Make build B current (or ramp it), wake every long run of every cluster until each is on B, then wait for the previous build to drain",
		0, check, func(ctx context.Context, cmd *cobra.Command, c client.Client) error {
			v, err := describeDeployment(ctx, c, f.deployment)
			if err != nil {
				return rolloutRefused(err, f.build, f.deployment)
			}
			opts, err := a.conn.ClientOptions()
			if err != nil {
				return err
			}
			last, err := lastCurrentTimes(ctx, c, namespace(opts.Namespace), f.deployment)
			if err != nil {
				return err
			}
			r := &roller{c: c, out: cmd.OutOrStdout(), f: *f, start: time.Now()}
			return r.run(ctx, v, planRollout(v, f.build, f.ramp, last))
		})
	addRolloutFlags(cmd, f, false)
	return cmd
}

func (a *app) selfUpgradeRollbackCmd() *cobra.Command {
	f := &rolloutFlags{}
	check := func() error { return f.check(true) }
	cmd := a.clientCmd("rollback [--build A]", "Make the previous build current again (or remove a ramp), wake every long run until each is back on it, then wait for the build they left to drain",
		0, check, func(ctx context.Context, cmd *cobra.Command, c client.Client) error {
			v, err := describeDeployment(ctx, c, f.deployment)
			if err != nil {
				return rolloutRefused(err, f.build, f.deployment)
			}
			var last map[string]time.Time
			if f.build == "" {
				opts, err := a.conn.ClientOptions()
				if err != nil {
					return err
				}
				if last, err = lastCurrentTimes(ctx, c, namespace(opts.Namespace), f.deployment); err != nil {
					return err
				}
			}
			ch, err := planRollback(v, f.build, last)
			if err != nil {
				return err
			}
			r := &roller{c: c, out: cmd.OutOrStdout(), f: *f, start: time.Now()}
			return r.run(ctx, v, ch)
		})
	addRolloutFlags(cmd, f, true)
	return cmd
}

func namespace(ns string) string {
	if ns == "" {
		return "default"
	}
	return ns
}

// rolloutRefused explains a deployment that does not exist in terms of
// the build's workers, which create it by polling.
func rolloutRefused(err error, build, deployment string) error {
	if errors.Is(err, errNoDeployment) && build != "" {
		return fmt.Errorf("build %s has no worker polling deployment %s: start %s's workers first (deploy/versioned, docs/install.md): %w", build, deployment, build, err)
	}
	return err
}

// roller carries out a change and waits for it.
type roller struct {
	c     client.Client
	out   io.Writer
	f     rolloutFlags
	start time.Time
}

// say prints a progress line with the time since the command started.
func (r *roller) say(format string, args ...any) {
	fmt.Fprintf(r.out, "%5s  %s\n", time.Since(r.start).Truncate(time.Second), fmt.Sprintf(format, args...))
}

func (r *roller) run(ctx context.Context, v deploymentView, ch change) error {
	if ch.Nothing != "" {
		fmt.Fprintln(r.out, ch.Nothing)
		return nil
	}
	// Everything that can refuse does so before the routing changes.
	if err := checkPolling(ctx, r.c, v.Name, ch.Build); err != nil {
		return err
	}
	var cs kubernetes.Interface
	var target scaleTarget
	if r.f.scaleDown != "" {
		if ch.Drains == "" {
			return fmt.Errorf("--scale-down %s: no build drains (unversioned workers were current): nothing to scale down", r.f.scaleDown)
		}
		target, _ = parseScaleDown(r.f.scaleDown) // checked with the flags
		var err error
		if cs, err = kubeClient(ctx, r.f.kubeconfig, target); err != nil {
			return err
		}
		if err := checkScaleDown(ctx, cs, target, ch.Drains); err != nil {
			return err
		}
	}
	if err := r.route(ctx, v, ch); err != nil {
		return err
	}
	to := versionName(v.Name, ch.Build)
	if ch.Ramp > 0 {
		rows, woken := r.wakeOnce(ctx)
		write := func() error { return writeBuilds(r.out, rows, woken) }
		if len(rows) == 0 {
			write = func() error { return writeRuns(r.out, rows) } // says there is none
		}
		if err := write(); err != nil {
			return err
		}
		fmt.Fprintf(r.out, "a ramp moves only a share: at its next safe point each woken run goes to %s with a %d %% chance, the others stay where they are; `starter self-upgrade rollout --build %s` makes it current and waits for every run\n",
			to, ch.Ramp, ch.Build)
		return nil
	}
	if _, err := r.waitOn(ctx, to); err != nil {
		return err
	}
	fmt.Fprintf(r.out, "every long run of every cluster is on %s\n", to)
	switch {
	case ch.Drains == "" && ch.Already:
		fmt.Fprintf(r.out, "no build was current before %s on record: none drains\n", ch.Build)
	case ch.Drains == "":
		fmt.Fprintln(r.out, "unversioned workers were current before: no build drains")
	default:
		if err := r.waitDrained(ctx, v.Name, ch.Drains); err != nil {
			return err
		}
		if cs != nil {
			if err := scaleDown(ctx, cs, target); err != nil {
				return err
			}
			fmt.Fprintf(r.out, "build %s drained: Deployment %s scaled to 0 replicas\n", ch.Drains, target)
		} else {
			fmt.Fprintf(r.out, "build %s drained: its workers may go\n", ch.Drains)
		}
	}
	clusters, err := registeredClusters(ctx, r.c)
	if err != nil {
		return err
	}
	return writeRuns(r.out, clusterRuns(ctx, r.c, clusters))
}

// route changes the deployment, with the conflict token of the describe
// the decision was made on: a change by someone else in between refuses.
func (r *roller) route(ctx context.Context, v deploymentView, ch change) error {
	h := r.c.WorkerDeploymentClient().GetHandle(v.Name)
	var err error
	switch {
	case ch.Already:
		r.say("deployment %s: build %s is current already: waking every long run again and waiting for it", v.Name, ch.Build)
	case ch.StopRamp:
		_, err = h.SetRampingVersion(ctx, client.WorkerDeploymentSetRampingVersionOptions{ConflictToken: v.token})
		if err == nil {
			r.say("deployment %s: the ramp of build %s removed; build %s stays current", v.Name, ch.Drains, ch.Build)
		}
	case ch.Ramp > 0:
		_, err = h.SetRampingVersion(ctx, client.WorkerDeploymentSetRampingVersionOptions{BuildID: ch.Build, Percentage: float32(ch.Ramp), ConflictToken: v.token})
		if err == nil {
			r.say("deployment %s: build %s ramps at %d %% (new runs and moves); build %s stays current", v.Name, ch.Build, ch.Ramp, orUnversioned(v.Current))
		}
	default:
		_, err = h.SetCurrentVersion(ctx, client.WorkerDeploymentSetCurrentVersionOptions{BuildID: ch.Build, ConflictToken: v.token})
		if err == nil {
			r.say("deployment %s: build %s is current (was %s)", v.Name, ch.Build, orUnversioned(v.Current))
		}
	}
	var fp *serviceerror.FailedPrecondition
	if errors.As(err, &fp) {
		return fmt.Errorf("deployment %s changed since it was read, or refused the change (%w): run the command again after `starter self-upgrade status`", v.Name, err)
	}
	if err != nil {
		return fmt.Errorf("deployment %s: %w", v.Name, err)
	}
	return nil
}

func orUnversioned(build string) string {
	if build == "" {
		return "unversioned workers"
	}
	return build
}

// wakeOnce signals every running long run once, as `wake` does.
func (r *roller) wakeOnce(ctx context.Context) ([]runBuild, map[string]bool) {
	clusters, err := registeredClusters(ctx, r.c)
	if err != nil {
		r.say("list clusters: %v", err)
	}
	rows := clusterRuns(ctx, r.c, clusters)
	// No run is on build "": pending is every running one.
	return rows, r.wake(ctx, pending(rows, ""))
}

// wake signals self-upgrade to each run; one that ended meanwhile is
// skipped, since its next run is read again.
func (r *roller) wake(ctx context.Context, rows []runBuild) map[string]bool {
	woken := map[string]bool{}
	for _, rb := range rows {
		if err := r.c.SignalWorkflow(ctx, rb.ID, "", api.SignalSelfUpgrade, nil); err != nil {
			r.say("wake %s: %v", rb.ID, err)
			continue
		}
		woken[rb.ID] = true
	}
	return woken
}

// waitOn waits until every running long run of every cluster is on
// target, printing each change, waking the runs not there yet soon and
// then every 30 s; past --wait it prints the table and names them.
func (r *roller) waitOn(ctx context.Context, target string) ([]runBuild, error) {
	deadline := time.Now().Add(r.f.wait)
	seen, said := map[string]string{}, map[string]string{}
	var clusters []string
	var nextWake time.Time
	r.say("waiting up to %v (--wait) for every long run of every cluster to be on %s, waking those that are not", r.f.wait, target)
	for wakes, first := 0, true; ; first = false {
		names, err := registeredClusters(ctx, r.c)
		if err != nil {
			r.say("%v (the clusters seen so far are followed)", err)
		}
		clusters = addClusters(clusters, names...)
		rows := clusterRuns(ctx, r.c, clusters)
		if first {
			if err := writeRuns(r.out, rows); err != nil {
				return nil, err
			}
		}
		for _, l := range progressLines(seen, rows, first) {
			r.say("%s", l)
		}
		left := pending(rows, target)
		r.nextMoves(ctx, left, said)
		if len(left) == 0 {
			return rows, nil
		}
		if time.Now().After(deadline) {
			_ = writeRuns(r.out, rows)
			return rows, withCode(exitFailed, fmt.Errorf("not on %s within %v (--wait): %s; a runtime upgrade mid-rack moves only at its next rack boundary: `starter self-upgrade status` follows the runs, `wake --cluster C` wakes one that waits",
				target, r.f.wait, pendingList(left)))
		}
		if !time.Now().Before(nextWake) {
			r.wake(ctx, left)
			nextWake = time.Now().Add(wakeDelay(wakes))
			wakes++
		}
		if err := sleep(ctx, pollEvery); err != nil {
			return nil, err
		}
	}
}

// nextMoves prints what each waiting runtime upgrade says of its next
// move, once per new word.
func (r *roller) nextMoves(ctx context.Context, left []runBuild, said map[string]string) {
	for _, rb := range left {
		if !strings.HasPrefix(rb.ID, api.UpgradeID("")) {
			continue
		}
		st, err := query[map[string]any](ctx, r.c, rb.ID, api.QueryStatus, func(err error) error { return err })
		if err != nil {
			continue
		}
		if l := nextMoveLine(rb.ID, st, said); l != "" {
			r.say("%s", l)
		}
	}
}

// waitDrained waits until build reports Drained: no open pinned run is on
// it (the server's periodic check, plus its grace period).
func (r *roller) waitDrained(ctx context.Context, deployment, build string) error {
	h := r.c.WorkerDeploymentClient().GetHandle(deployment)
	deadline := time.Now().Add(r.f.drainWait)
	r.say("waiting up to %v (--drain-wait) for build %s to drain", r.f.drainWait, build)
	last := ""
	for {
		status := "unknown"
		d, err := h.DescribeVersion(ctx, client.WorkerDeploymentDescribeVersionOptions{BuildID: build})
		switch {
		case err != nil:
			status = "unknown (" + err.Error() + ")"
		case d.Info.DrainageInfo == nil:
			status = "current or ramping again"
		case d.Info.DrainageInfo.DrainageStatus == client.WorkerDeploymentVersionDrainageStatusDrained:
			return nil
		case d.Info.DrainageInfo.DrainageStatus == client.WorkerDeploymentVersionDrainageStatusDraining:
			status = "draining"
		}
		if status != last {
			r.say("build %s: %s", build, status)
			last = status
		}
		if time.Now().After(deadline) {
			return withCode(exitFailed, fmt.Errorf("build %s not drained within %v (--drain-wait): %s; keep its workers until it is: `starter self-upgrade status`",
				build, r.f.drainWait, r.openOn(ctx, versionName(deployment, build))))
		}
		if err := sleep(ctx, pollEvery); err != nil {
			return err
		}
	}
}

// openOn names the open pinned runs on a version, as the server's
// drainage check counts them.
func (r *roller) openOn(ctx context.Context, version string) string {
	q := fmt.Sprintf("TemporalWorkerDeploymentVersion = '%s' AND TemporalWorkflowVersioningBehavior = 'Pinned' AND ExecutionStatus = 'Running'", version)
	infos, err := listAll(ctx, r.c, q)
	if err != nil {
		return "its open runs could not be listed (" + err.Error() + ")"
	}
	if len(infos) == 0 {
		return "no open run is listed on it: the server's drainage check comes every few minutes"
	}
	ids := make([]string, 0, 10)
	for _, in := range infos[:min(len(infos), 10)] {
		ids = append(ids, in.GetExecution().GetWorkflowId())
	}
	return fmt.Sprintf("%d open runs on it: %s", len(infos), strings.Join(ids, ", "))
}
