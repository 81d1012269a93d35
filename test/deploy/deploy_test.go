// Package deploy_test installs deploy/ on the lab's apiserver (RBAC on) and
// runs rackroll with nothing but the worker ServiceAccount's token (issue 23).
package deploy_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/invariants"
	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/lab/faults"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/sitecheck"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/rackroll/rackroll/worker/wiring"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
)

// On a three-rack lab site whose inventory points at a kubeconfig holding
// only deploy/'s ServiceAccount token: site check finds every permission,
// a full upgrade and a remediation that deletes a node complete, and the
// lab's safety rules hold. Then delete is taken from the ClusterRole's
// nodes rule: site check names it, and the next remediation fails at
// "delete node", saying which permission is missing.
func TestDeployedWorkerNeedsOnlyItsClusterRole(t *testing.T) {
	t.Parallel()
	var worker string // the restricted kubeconfig
	env := e2e.Start(t, "../../examples/four-rack.yaml", e2e.Options{
		Mutate: func(inv *model.Inventory) {
			// Three racks (three KCPs + a spare, etcd attached), three
			// computes each: every phase of an upgrade, in half the time.
			inv.Racks = inv.Racks[:3]
			for i, r := range inv.Racks {
				inv.Racks[i].Servers = slices.DeleteFunc(r.Servers, func(s model.ServerSpec) bool {
					return s.Role == model.RoleCompute && s.Name > r.Name+"-c3"
				})
			}
			fastRemediation(inv)
		},
		StartWorker: func(e *e2e.Env) {
			applyDeploy(t, e.Lab.Kube)
			applyVersioned(t, e.Lab.Kube, clientOf(t, e.Lab.Kube.Kubeconfig()))
			worker = workerKubeconfig(t, e.Lab.Kube, filepath.Join(e.Dir, "rackroll-worker.kubeconfig"))
			// Registration records this kubeconfig in the ledger: every
			// Kubernetes activity of the worker uses it, and nothing else.
			e.Inventory.Kubernetes = model.KubernetesSpec{Kubeconfig: worker}
			// The BMC passwords are in Secrets the worker reads with the
			// same token, as its pod would (the management cluster).
			useBMCSecrets(t, e)
			mc := clientOf(t, worker)
			e.StartWorker(&wiring.Options{PollInterval: 200 * time.Millisecond, BMCPowerOnTimeout: 15 * time.Second,
				Management: func() (kubernetes.Interface, error) { return mc, nil }})
		},
	})
	require.Equal(t, worker, env.State().Kubeconfig, "the ledger holds the worker's own kubeconfig")
	t.Cleanup(func() { dumpPending(t, env) })
	cs := clientOf(t, worker)

	rep := siteCheck(t, env, cs)
	require.Zero(t, rep.Blockers(), "%+v", rep)
	var granted []string
	for _, it := range rep.Kubernetes[1:] { // [0] is "API reachable"
		require.True(t, it.OK, "%+v", it)
		granted = append(granted, it.Check)
	}
	want := append(sitecheck.Needed(), sitecheck.NeededInNamespaces()...)
	for i := range want {
		want[i] = "may " + want[i]
	}
	require.Equal(t, want, granted, "site check asked for every permission")

	ctx := env.Context(12 * time.Minute)
	st := upgrade(ctx, t, env, "4.2.0")
	for _, u := range st.Units() {
		for _, s := range u.Servers {
			require.NotEqual(t, api.StateFailed, s.State, "%s: %s", s.Name, s.Error)
		}
	}
	require.Equal(t, "4.2.0", env.State().Cluster.RuntimeVersion, st.DetailedStatusMessage)
	site, err := invariants.SiteFromInventory(env.Inventory)
	require.NoError(t, err)
	evs := env.Events()
	// Every rule, placement-table included: on three racks the upgrade
	// retires the KCP in the spare's rack, so the KCPs keep a rack each.
	vs := invariants.Check(evs, invariants.WithUpgrade(site, st))
	require.Empty(t, vs, "lab check: violations after the upgrade")

	env.StartMonitor()
	rs := remediate(ctx, t, env, "rack3-c1")
	require.Contains(t, rs.Outcome, "reprovision failed; marked Unhealthy; powered off", rs.Outcome)
	requireNodeDeleted(t, env, "rack3-c1")

	withoutVerb(t, env.Lab.Kube, "nodes", "delete")
	env.Eventually(30*time.Second, "site check sees delete nodes denied", func() bool { return siteCheck(t, env, cs).Blockers() > 0 })
	rep = siteCheck(t, env, cs)
	var denied []sitecheck.Item
	for _, it := range rep.Kubernetes {
		if !it.OK {
			denied = append(denied, it)
		}
	}
	require.Len(t, denied, 1, "%+v", rep.Kubernetes)
	require.Equal(t, "may delete nodes", denied[0].Check)
	require.Contains(t, denied[0].Fix, "grant delete on nodes cluster-wide")

	rs = remediate(ctx, t, env, "rack3-c2")
	t.Logf("remediation of rack3-c2 without delete nodes: %s", rs.Outcome)
	require.Contains(t, rs.Outcome, "delete node rack3-c2")
	require.Contains(t, rs.Outcome, `cannot delete resource "nodes"`)
	require.Contains(t, rs.Outcome, "system:serviceaccount:rackroll:rackroll-worker")
	require.Contains(t, rs.Outcome, "deploy/clusterrole.yaml")

	// Without its grant on the BMC Secrets, a BMC step fails at once,
	// naming the Secret and what to grant, before any request to the BMC.
	revokeBMCSecrets(t, env)
	err = env.StartAction(ctx, 1, api.ActionInput{BMM: "rack2-c1", Action: api.ActionRestart}).Get(ctx, nil)
	require.Error(t, err)
	for _, want := range []string{"BMC of rack2-c1", "may not read the BMC credentials Secret rackroll/bmc-", "grant its ServiceAccount get on secrets in rackroll"} {
		require.ErrorContains(t, err, want)
	}
}

// siteCheck runs `starter site check`'s Kubernetes probes with cs (the
// BMCs are not the subject here).
func siteCheck(t *testing.T, env *e2e.Env, cs kubernetes.Interface) sitecheck.Report {
	t.Helper()
	src := env.Inventory.Kubernetes.NodeVersion()
	return sitecheck.Run(context.Background(), sitecheck.Input{Inventory: env.Inventory, Kube: cs,
		ProbeBMC:  func(context.Context, model.ServerSpec) []sitecheck.Item { return nil },
		VersionOf: func(n *corev1.Node) (string, error) { return src.Read(n.Labels, n.Status.NodeInfo.OSImage) }})
}

// fastRemediation: remediation clocks in seconds (as workflows' e2e tests).
func fastRemediation(inv *model.Inventory) {
	s := func(d time.Duration) model.Duration { return model.Duration(d) }
	inv.Remediation = &model.RemediationSpec{Interval: s(time.Second), NodeUnknownFor: s(3 * time.Second),
		ReadOnlyRootFilesystemFor: s(3 * time.Second), ProvisioningTimeout: s(time.Minute),
		RebootTimeout: s(10 * time.Second), ReprovisionTimeout: s(20 * time.Second), MaxConcurrentCompute: 5}
}

// remediate breaks bmm so that its reprovision fails (it ends Unhealthy,
// its node deleted) and returns the remediation's result.
func remediate(ctx context.Context, t *testing.T, env *e2e.Env, bmm string) api.RemediationStatus {
	require.NoError(t, env.Lab.SetFault(bmm, faults.ReimageFails, 0, false))
	require.NoError(t, env.Lab.SetFault(bmm, faults.ReadOnlyRootFS, 0, false))
	return env.Remediation(ctx, bmm)
}

func requireNodeDeleted(t *testing.T, env *e2e.Env, bmm string) {
	evs := env.Events()
	for _, e := range evs {
		if e.BMM == bmm && e.Kind == events.NodeDeleted {
			return
		}
	}
	t.Fatalf("no %s event for %s", events.NodeDeleted, bmm)
}

// dumpPending logs, when the test failed, what the upgrade's and the
// remediations' workflows wait on: their pending activities and children.
func dumpPending(t *testing.T, env *e2e.Env) {
	if !t.Failed() {
		return
	}
	ids := []string{api.UpgradeID(env.Cluster), api.ClusterID(env.Cluster)}
	for _, r := range env.Inventory.Racks {
		ids = append(ids, api.RackUpgradeID(env.Cluster, r.Name))
		for _, s := range r.Servers {
			ids = append(ids, api.ServerUpgradeID(env.Cluster, s.Name), api.RemediationID(env.Cluster, s.Name))
		}
	}
	for _, id := range ids {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		d, err := env.Client.DescribeWorkflowExecution(ctx, id, "")
		cancel()
		if err != nil {
			if !strings.Contains(err.Error(), "not found") {
				t.Logf("describe %s: %v", id, err)
			}
			continue
		}
		info := d.WorkflowExecutionInfo
		t.Logf("%s: %v, %d pending activities, %d children", id, info.GetStatus(), len(d.PendingActivities), len(d.PendingChildren))
		if wt := d.PendingWorkflowTask; wt != nil {
			t.Logf("  workflow task pending: attempt %d, %v", wt.Attempt, wt.State)
		}
		lastEvents(t, env, id)
		for _, a := range d.PendingActivities {
			t.Logf("  waits on %s (attempt %d, %v): %v", a.ActivityType.GetName(), a.Attempt, a.State, a.LastFailure.GetMessage())
		}
	}
}

// upgrade runs an upgrade to its end like env.Upgrade, but fails as soon
// as it pauses (a server failed), and waits through a dev server slowed
// down by a busy machine.
func upgrade(ctx context.Context, t *testing.T, env *e2e.Env, target string) api.UpgradeStatus {
	t.Helper()
	// Drain and VM shutdown bounded by a minute, not e2e's 5 s: on a busy
	// machine a drain that evicted everything can still miss 5 s (the
	// bound is the activity's ScheduleToClose) and fail its server.
	zero := 0
	run := env.StartUpgradeInput(ctx, api.UpgradeInput{TargetVersion: target,
		UpdateStrategy: model.UpdateStrategy{WaitTimeMinutes: &zero}, DrainTimeout: time.Minute, VMShutdownTimeout: time.Minute})
	var st api.UpgradeStatus
	var err error
	for {
		wctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		err = env.Client.GetWorkflow(wctx, run.GetID(), run.GetRunID()).Get(wctx, &st)
		cancel()
		// Only the workflow's own failure ends the wait: this poll's limit
		// and a busy dev server's dropped streams are asked again.
		var failed *temporal.WorkflowExecutionError
		if err == nil || ctx.Err() != nil || errors.As(err, &failed) {
			break
		}
		time.Sleep(time.Second)
		if cs := env.State().Cluster; cs.DetailedStatus == model.ClusterUpdatePaused {
			t.Fatalf("the upgrade paused: %s", cs.DetailedStatusMessage)
		}
	}
	require.NoError(t, err)
	require.Equal(t, model.ClusterRunning, st.DetailedStatus, st.DetailedStatusMessage)
	return st
}

// lastEvents logs the last failures in a workflow's history.
func lastEvents(t *testing.T, env *e2e.Env, id string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	it := env.Client.GetWorkflowHistory(ctx, id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	var tail []string
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			t.Logf("history of %s: %v", id, err)
			return
		}
		if strings.Contains(e.EventType.String(), "Failed") || strings.Contains(e.EventType.String(), "TimedOut") {
			tail = append(tail, fmt.Sprintf("%d %v %v", e.EventId, e.EventType, e.Attributes))
		}
	}
	for _, l := range tail[max(0, len(tail)-4):] {
		t.Logf("  %.600s", l)
	}
}
