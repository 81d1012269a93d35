package workflows_test

import (
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/activities/kube"
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/lab/faults"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Issue 26, end to end: no step reports an effect it has not seen.

// A restart succeeds only once the node booted again; one the BMC answers
// and ignores fails within 3 minutes, naming the BMM and what the BMC
// showed, and the ledger never says it restarted.
func TestE2ERestartNeedsEvidence(t *testing.T) {
	env := e2e.Start(t, "../examples/two-rack.yaml", e2e.Options{})
	ctx := env.Context(5 * time.Minute)
	kc, err := kube.Kubeconfig(env.Inventory.Kubernetes.Kubeconfig).Clientset(ctx)
	require.NoError(t, err)
	bootID := func(node string) string {
		n, err := kc.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
		require.NoError(t, err)
		return n.Status.NodeInfo.BootID
	}
	restart := func(bmm string, seq int) (api.ActionResult, error) {
		in := api.ActionInput{Cluster: env.Cluster, BMM: bmm, Action: api.ActionRestart, TimeLimit: time.Minute}
		run, err := env.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: api.ActionID(env.Cluster, bmm, seq), TaskQueue: api.TaskQueue},
			api.BMMActionWorkflowName, in)
		require.NoError(t, err)
		var res api.ActionResult
		return res, run.Get(ctx, &res)
	}

	t.Run("honest restart", func(t *testing.T) {
		const name = "rack1-c1"
		before := bootID(name)
		require.NotEmpty(t, before)
		res, err := restart(name, 2601)
		require.NoError(t, err)
		require.Contains(t, res.Message, "restarted")
		require.NotEqual(t, before, bootID(name), "succeeded only once the node booted again")
		require.Equal(t, 1, countEvents(t, env, events.Reset, name))
		env.RecordHistories("testdata/histories", api.ActionID(env.Cluster, name, 2601))
	})

	t.Run("reset ignored", func(t *testing.T) {
		const name = "rack1-c2"
		before := bootID(name)
		require.NoError(t, env.Lab.SetFault(name, faults.ResetIgnored, 0, false))
		began := time.Now()
		res, err := restart(name, 2602)
		require.Error(t, err)
		t.Logf("after %s: %v", time.Since(began).Round(time.Second), err)
		require.Less(t, time.Since(began), 3*time.Minute)
		for _, want := range []string{name, "accepted ForceRestart (204) but showed no change", "did not boot again"} {
			require.Contains(t, err.Error(), want)
		}
		require.NotContains(t, res.Message, "restarted "+name)
		require.Equal(t, before, bootID(name), "the machine never restarted")
		b := bmmOf(t, env, name)
		require.Equal(t, model.BMMError, b.DetailedStatus)
		require.Contains(t, b.DetailedStatusMessage, "showed no change")
		env.RecordHistories("testdata/histories", api.ActionID(env.Cluster, name, 2602))
	})
}

// An upgrade of a rack where one compute's BMC cannot mount the installer
// fails that server within a minute of its insert, saying the installer
// was not mounted; the rest of the rack goes on and the threshold judges.
func TestE2EUpgradeWithAnUnmountableInstaller(t *testing.T) {
	const bad = "rack2-c3"
	env := e2e.Start(t, "../examples/two-rack.yaml", e2e.Options{Mutate: func(inv *model.Inventory) {
		inv.Lab = []byte(`{"faults": [{"bmm": "` + bad + `", "kind": "media-unmountable"}]}`)
	}})
	ctx := env.Context(10 * time.Minute)
	lenient := model.UpdateStrategy{StrategyType: model.StrategyRack, ThresholdType: model.ThresholdPercentSuccess, ThresholdValue: 0, WaitTimeMinutes: new(int)}
	run, err := env.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: api.UpgradeID(env.Cluster), TaskQueue: api.TaskQueue},
		api.RuntimeUpgradeWorkflowName, api.UpgradeInput{Cluster: env.Cluster, TargetVersion: "4.2.0", UpdateStrategy: lenient,
			DrainTimeout: 30 * time.Second, VMShutdownTimeout: 30 * time.Second})
	require.NoError(t, err)

	// The insert the BMC answered and never carried out, then the failure.
	var inserted, failed time.Time
	env.Eventually(8*time.Minute, bad+" failed", func() bool {
		if inserted.IsZero() {
			inserted = faultAt(t, env, bad, faults.MediaUnmount)
		}
		b := bmmOf(t, env, bad)
		if b.DetailedStatus == model.BMMError && strings.Contains(b.DetailedStatusMessage, "not mounted") {
			failed = time.Now()
			return true
		}
		return false
	})
	require.False(t, inserted.IsZero(), "the lab logged the insert it did not carry out")
	require.Less(t, failed.Sub(inserted), time.Minute, "failed within a minute of its insert")

	var st api.UpgradeStatus
	require.NoError(t, run.Get(ctx, &st))
	var badErr string
	for _, f := range failedServers(st) {
		if f.Name == bad {
			badErr = f.Error
		} else {
			require.NotContains(t, f.Error, "not mounted", "only %s's BMC cannot mount", bad)
		}
	}
	t.Logf("%s failed %s after its insert: %s", bad, failed.Sub(inserted).Round(time.Second), badErr)
	require.Contains(t, badErr, "the installer was not mounted", "%+v", st.Racks)
	require.Contains(t, badErr, "check that the BMC can reach the image server")
	require.Equal(t, "4.2.0", bmmOf(t, env, "rack2-c1").RuntimeVersion, "the rest of the rack goes on")
	require.Zero(t, env.Lab.ReimageCounts()[bad])
}

// faultAt is when the lab logged kind's effect on bmm (zero: not yet).
func faultAt(t *testing.T, env *e2e.Env, bmm string, kind faults.Kind) time.Time {
	t.Helper()
	for _, e := range env.Lab.Events.Events() {
		if e.Kind == events.Fault && e.BMM == bmm && e.Detail["kind"] == string(kind) && e.Detail["image"] != nil {
			return e.Time
		}
	}
	return time.Time{}
}

func countEvents(t *testing.T, env *e2e.Env, kind, bmm string) int {
	t.Helper()
	return env.Lab.Events.Count(kind, bmm)
}
