package selfupgrade_test

import (
	"context"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/devserver"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// Bad input a running server judges, on a bare server (no lab, no
// cluster): a build no worker polls is refused before the routing changes
// (the current version is still A), the current build is nothing to do;
// a ramp moves a share and says so, and rollback removes it, waiting for
// the ramped build to drain.
func TestE2ERolloutRefusesABuildWithoutWorkers(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts a Temporal server")
	}
	srv, err := devserver.Start(context.Background(), devserver.Options{Drainage: 2 * time.Second})
	require.NoError(t, err)
	t.Cleanup(srv.Stop)
	c, err := srv.Client()
	require.NoError(t, err)
	t.Cleanup(c.Close)
	h := c.WorkerDeploymentClient().GetHandle(deployment)
	routing := func() client.WorkerDeploymentRoutingConfig {
		t.Helper()
		d, err := h.Describe(context.Background(), client.WorkerDeploymentDescribeOptions{})
		require.NoError(t, err)
		return d.Info.RoutingConfig
	}
	home := t.TempDir()
	run := func(args ...string) (string, string, int) {
		t.Helper()
		out, stderr, code := starterAt(t, srv.Address, home, 3*time.Minute, append([]string{"self-upgrade"}, args...)...)
		t.Logf("starter %v: exit %d\n%s%s", args, code, out, stderr)
		return out, stderr, code
	}
	noopBuild(t, c, "A")
	eventually(t, time.Minute, "A current", func() bool {
		_, err := h.SetCurrentVersion(context.Background(), client.WorkerDeploymentSetCurrentVersionOptions{BuildID: "A"})
		return err == nil
	})

	_, stderr, code := run("rollout", "--build", "Z")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "build Z has no worker polling deployment rackroll: start Z's workers first (deploy/versioned, docs/install.md)")
	require.Equal(t, "A", routing().CurrentVersion.BuildID, "refused before SetCurrentVersion")

	out, _, code := run("rollout", "--build", "A")
	require.Zero(t, code)
	require.Contains(t, out, "build A is current already: waking every long run again and waiting for it", "run again, it converges")

	noopBuild(t, c, "B")
	eventually(t, time.Minute, "B polled", func() bool {
		_, err := h.DescribeVersion(context.Background(), client.WorkerDeploymentDescribeVersionOptions{BuildID: "B"})
		return err == nil
	})
	out, _, code = run("rollout", "--build", "B", "--ramp", "50")
	require.Zero(t, code)
	require.Contains(t, out, "build B ramps at 50 %")
	require.Contains(t, out, "a ramp moves only a share")
	rc := routing()
	require.Equal(t, "A", rc.CurrentVersion.BuildID)
	require.Equal(t, "B", rc.RampingVersion.BuildID)
	require.Equal(t, float32(50), rc.RampingVersionPercentage)
	out, _, code = run("status")
	require.Zero(t, code)
	require.Contains(t, out, "deployment rackroll: current A, ramping B at 50 %")
	require.Regexp(t, `(?m)^B +ramping 50% `, out)
	require.Contains(t, out, "no registered cluster")

	out, _, code = run("rollback", "--wait", "1m", "--drain-wait", "2m")
	require.Zero(t, code)
	require.Contains(t, out, "the ramp of build B removed; build A stays current")
	require.Contains(t, out, "build B drained: its workers may go")
	rc = routing()
	require.Equal(t, "A", rc.CurrentVersion.BuildID)
	require.Nil(t, rc.RampingVersion, "no ramp left")
}

// noopBuild runs a versioned worker of build id on rackroll's task queue
// with one workflow: enough for its version to exist and poll.
func noopBuild(t *testing.T, c client.Client, id string) {
	t.Helper()
	w := worker.New(c, api.TaskQueue, worker.Options{DeploymentOptions: worker.DeploymentOptions{UseVersioning: true,
		Version:                   worker.WorkerDeploymentVersion{DeploymentName: deployment, BuildID: id},
		DefaultVersioningBehavior: workflow.VersioningBehaviorPinned}})
	w.RegisterWorkflowWithOptions(func(workflow.Context) error { return nil }, workflow.RegisterOptions{Name: "Noop"})
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
}

func eventually(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within %v: %s", within, what)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
