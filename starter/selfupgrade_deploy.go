package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
)

// What the self-upgrade commands read from the server: the Worker
// Deployment (the SDK's deployment client), whether a build's workers
// poll, and every registered cluster's long runs.

// ledgerPrefix starts every ledger's workflow ID: the cluster name follows.
var ledgerPrefix = api.ClusterID("")

// errNoDeployment: no versioned worker ever polled the deployment.
var errNoDeployment = errors.New("deployment not found")

// describeDeployment reads the deployment's routing and versions.
func describeDeployment(ctx context.Context, c client.Client, name string) (deploymentView, error) {
	d, err := c.WorkerDeploymentClient().GetHandle(name).Describe(ctx, client.WorkerDeploymentDescribeOptions{})
	if err != nil {
		var nf *serviceerror.NotFound
		if errors.As(err, &nf) {
			return deploymentView{}, fmt.Errorf("%w: no versioned worker has polled deployment %s (the workers are unversioned, or run with another --deployment)", errNoDeployment, name)
		}
		return deploymentView{}, fmt.Errorf("describe deployment %s: %w", name, err)
	}
	rc := d.Info.RoutingConfig
	v := deploymentView{Name: name, RampPercent: rc.RampingVersionPercentage, token: d.ConflictToken}
	if rc.CurrentVersion != nil {
		v.Current = rc.CurrentVersion.BuildID
	}
	if rc.RampingVersion != nil {
		v.Ramping = rc.RampingVersion.BuildID
	}
	for _, s := range d.Info.VersionSummaries {
		x := versionView{Build: s.Version.BuildID, Created: s.CreateTime}
		switch s.DrainageStatus {
		case client.WorkerDeploymentVersionDrainageStatusDraining:
			x.Drainage = "draining"
		case client.WorkerDeploymentVersionDrainageStatusDrained:
			x.Drainage = "drained"
		}
		v.Versions = append(v.Versions, x)
	}
	return v, nil
}

// lastCurrentTimes is when each version last became current. The SDK's
// version summary does not carry it, the API's does: the one read of the
// raw describe, for rollback's default.
func lastCurrentTimes(ctx context.Context, c client.Client, namespace, name string) (map[string]time.Time, error) {
	resp, err := c.WorkflowService().DescribeWorkerDeployment(ctx, &workflowservice.DescribeWorkerDeploymentRequest{
		Namespace: namespace, DeploymentName: name})
	if err != nil {
		return nil, fmt.Errorf("describe deployment %s: %w", name, err)
	}
	out := map[string]time.Time{}
	for _, s := range resp.GetWorkerDeploymentInfo().GetVersionSummaries() {
		if t := s.GetLastCurrentTime(); t != nil {
			out[s.GetDeploymentVersion().GetBuildId()] = t.AsTime()
		}
	}
	return out, nil
}

// checkPolling refuses a build whose workers do not poll rackroll's task
// queue: the version exists (its workers' first poll made it) and serves
// the queue, and a poller of it was seen lately. The queue's root partition
// answers for its pollers, which reach it directly or forwarded by the
// other partitions: it is asked a few times before the build is refused.
func checkPolling(ctx context.Context, c client.Client, deployment, build string) error {
	start := fmt.Sprintf("build %s has no worker polling deployment %s: start %s's workers first (deploy/versioned, docs/install.md)", build, deployment, build)
	d, err := c.WorkerDeploymentClient().GetHandle(deployment).DescribeVersion(ctx, client.WorkerDeploymentDescribeVersionOptions{BuildID: build})
	if err != nil {
		var nf *serviceerror.NotFound
		if errors.As(err, &nf) {
			return errors.New(start)
		}
		return fmt.Errorf("describe version %s of deployment %s: %w", build, deployment, err)
	}
	serves := false
	for _, q := range d.Info.TaskQueuesInfos {
		serves = serves || (q.Name == api.TaskQueue && q.Type == client.TaskQueueTypeWorkflow)
	}
	if !serves {
		return fmt.Errorf("%s (version %s polls no workflow task queue %q)", start, build, api.TaskQueue)
	}
	for try := 0; ; try++ {
		resp, err := c.DescribeTaskQueue(ctx, api.TaskQueue, enumspb.TASK_QUEUE_TYPE_WORKFLOW)
		if err != nil {
			return fmt.Errorf("describe task queue %s: %w", api.TaskQueue, err)
		}
		for _, p := range resp.GetPollers() {
			if o := p.GetDeploymentOptions(); o.GetDeploymentName() == deployment && o.GetBuildId() == build {
				return nil
			}
		}
		if try == 4 {
			return fmt.Errorf("%s (none seen on task queue %s lately)", start, api.TaskQueue)
		}
		if err := sleep(ctx, 2*time.Second); err != nil {
			return err
		}
	}
}

// registeredClusters are the clusters whose ledger runs, from visibility.
func registeredClusters(ctx context.Context, c client.Client) ([]string, error) {
	infos, err := listAll(ctx, c, fmt.Sprintf("WorkflowType = '%s' AND ExecutionStatus = 'Running'", api.ClusterWorkflowName))
	if err != nil {
		return nil, err
	}
	var names []string
	for _, in := range infos {
		names = addClusters(names, clusterOf(in.GetExecution().GetWorkflowId()))
	}
	return names, nil
}

// clusterRuns is where each long run of the clusters stands, and each
// fleet's run (a fleet is of no one cluster: all of them are listed).
func clusterRuns(ctx context.Context, c client.Client, clusters []string) []runBuild {
	var rows []runBuild
	for _, cl := range clusters {
		for _, id := range append(longRuns(cl), keysetRuns(ctx, c, cl)...) {
			rows = append(rows, buildOf(ctx, c, id))
		}
	}
	for _, id := range fleetRuns(ctx, c) {
		rows = append(rows, buildOf(ctx, c, id))
	}
	return rows
}

// fleetRuns are the running fleets' ids, from visibility; none when it
// does not answer (the wake goes on without them).
func fleetRuns(ctx context.Context, c client.Client) []string {
	infos, err := listAll(ctx, c, fmt.Sprintf("WorkflowType = '%s' AND ExecutionStatus = 'Running'", api.FleetWorkflowName))
	if err != nil {
		return nil
	}
	var ids []string
	for _, in := range infos {
		ids = append(ids, in.GetExecution().GetWorkflowId())
	}
	return ids
}

// writeDeployment is the deployment's versions: routing and drainage.
func writeDeployment(w io.Writer, v deploymentView) error {
	current := v.Current
	if current == "" {
		current = "unversioned workers"
	}
	fmt.Fprintf(w, "deployment %s: current %s", v.Name, current)
	if v.Ramping != "" {
		fmt.Fprintf(w, ", ramping %s at %g %%", v.Ramping, v.RampPercent)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "BUILD\tROUTING\tCREATED")
	for _, x := range v.Versions {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", x.Build, v.routing(x.Build), x.Created.UTC().Format(time.RFC3339))
	}
	return tw.Flush()
}

// writeRuns is the runs and their builds, without `wake`'s column.
func writeRuns(w io.Writer, rows []runBuild) error {
	if len(rows) == 0 {
		_, err := fmt.Fprintln(w, "no registered cluster: no long run")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tSTATE\tBUILD\tBEHAVIOUR")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.ID, r.State, r.Build, r.Behavior)
	}
	return tw.Flush()
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
