package actions_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// End to end on the dev server against the lab: one site, one subtest per
// action scenario (each env start costs seconds; the actions take about
// one each with the e2e lab timings). Subtests act on different BMMs.
func TestE2EActions(t *testing.T) {
	t.Parallel()
	env := e2e.Start(t, "../../examples/four-rack.yaml", e2e.Options{})
	ctx := env.Context(5 * time.Minute)
	kc := env.Clientset(ctx)
	seq := 0
	run := func(t *testing.T, in api.ActionInput) (api.ActionResult, error) {
		t.Helper()
		seq++
		var res api.ActionResult
		return res, env.StartAction(ctx, 1000+seq, in).Get(ctx, &res)
	}
	bmm := func(name string) model.BMM {
		st := env.State()
		require.Empty(t, st.Leases, "every lease released")
		b, ok := st.Cluster.BMM(name)
		require.True(t, ok)
		return *b
	}

	t.Run("reimage keeps the version, reimages once, restarts the VMs that ran", func(t *testing.T) {
		const name = "rack1-c1"
		before := env.Lab.ReimageCounts()[name]
		res, err := run(t, api.ActionInput{BMM: name, Action: api.ActionReimage, EvacuateTimeout: 6 * time.Second})
		require.NoError(t, err)
		require.Equal(t, before+1, env.Lab.ReimageCounts()[name], "reimaged exactly once")
		b := bmm(name)
		require.Equal(t, "4.1.2", b.RuntimeVersion)
		require.Equal(t, model.Uncordoned, b.CordonStatus)
		require.Equal(t, model.BMMProvisioned, b.DetailedStatus)
		require.Equal(t, model.ReadyTrue, b.ReadyState)
		require.Equal(t, map[string]string{"vm-" + name + "-0": "Running", "vm-" + name + "-1": "Stopped"}, vmStates(t, ctx, kc, name))
		require.Len(t, res.VMsStarted, 1)
		env.RecordHistories(api.ActionID(env.Cluster, name, 1000+seq))
	})

	t.Run("replace Preserve records new hardware and keeps the VMs", func(t *testing.T) {
		const name = "rack1-c2"
		res, err := run(t, api.ActionInput{BMM: name, Action: api.ActionReplace, ReplaceParams: api.ReplaceParams{
			SerialNumber: "SN-R1C02-NEW", BootMacAddress: "52:54:00:01:01:f2", BMCCredentials: "default",
			StoragePolicy: api.StoragePreserve, SafeguardMode: api.SafeguardNone}, EvacuateTimeout: 6 * time.Second})
		require.NoError(t, err, res.Message)
		env.RecordHistories(api.ActionID(env.Cluster, name, 1000+seq))
		require.Equal(t, 1, env.Lab.ReimageCounts()[name])
		b := bmm(name)
		require.Equal(t, "SN-R1C02-NEW", b.SerialNumber)
		require.Equal(t, "52:54:00:01:01:f2", b.BootMACAddress)
		require.Equal(t, "vm-"+name+"-0", firstRunning(vmStates(t, ctx, kc, name)))
	})

	t.Run("replace DiscardAll leaves the VMs stopped", func(t *testing.T) {
		const name = "rack1-c3"
		res, err := run(t, api.ActionInput{BMM: name, Action: api.ActionReplace, ReplaceParams: api.ReplaceParams{
			StoragePolicy: api.StorageDiscardAll, SafeguardMode: api.SafeguardNone}, EvacuateTimeout: 6 * time.Second})
		require.NoError(t, err)
		require.Equal(t, 1, env.Lab.ReimageCounts()[name])
		require.Contains(t, res.Message, "DiscardAll")
		require.Empty(t, firstRunning(vmStates(t, ctx, kc, name)), "wiped disks: nothing restarts")
		require.Equal(t, model.Uncordoned, bmm(name).CordonStatus)
	})

	t.Run("replace an Unhealthy BMM whose node is gone clears Unhealthy", func(t *testing.T) {
		const name = "rack2-c2"
		recordBMM(t, ctx, env, api.BMMPatch{BMM: name, DetailedStatusMessage: api.Str(model.UnhealthyMessage), ReadyState: api.Str(model.ReadyFalse)})
		require.NoError(t, kc.CoreV1().Nodes().Delete(ctx, name, metav1.DeleteOptions{}))
		_, err := run(t, api.ActionInput{BMM: name, Action: api.ActionRestart})
		require.ErrorContains(t, err, "only replace returns it to service")
		_, err = run(t, api.ActionInput{BMM: name, Action: api.ActionReplace}) // safeguardMode All: allowed, it is not healthy
		require.NoError(t, err)
		b := bmm(name)
		require.Empty(t, b.DetailedStatusMessage)
		require.True(t, b.Healthy())
		n, err := kc.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		require.NoError(t, err, "the node re-registered")
		require.False(t, n.Spec.Unschedulable)
	})

	t.Run("cordon evacuate proceeds past a PDB that blocks eviction", func(t *testing.T) {
		const name = "rack2-c1"
		require.NoError(t, env.Lab.SetFault(name, "pdb-blocks", 0, false))
		res, err := run(t, api.ActionInput{BMM: name, Action: api.ActionCordon, Evacuate: true, EvacuateTimeout: 3 * time.Second})
		require.NoError(t, err)
		require.True(t, res.DrainTimedOut, res.Message)
		require.Contains(t, res.Message, "the drain ran out of time")
		require.Equal(t, model.Cordoned, bmm(name).CordonStatus)
		require.Empty(t, firstRunning(vmStates(t, ctx, kc, name)), "VMs shut down")
		require.NoError(t, env.Lab.SetFault(name, "pdb-blocks", 0, true))

		res, err = run(t, api.ActionInput{BMM: name, Action: api.ActionUncordon})
		require.NoError(t, err)
		require.Equal(t, model.Uncordoned, bmm(name).CordonStatus)
		require.Equal(t, "vm-"+name+"-0", firstRunning(vmStates(t, ctx, kc, name)), "uncordon restarts what evacuate stopped")
	})
}

// vmStates maps the node's VM pods to their vm-state annotation.
func vmStates(t *testing.T, ctx context.Context, kc kubernetes.Interface, node string) map[string]string {
	t.Helper()
	pods, err := kc.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=" + node,
		LabelSelector: fmt.Sprintf("%s=%s", model.LabelWorkload, model.WorkloadVM)})
	require.NoError(t, err)
	out := map[string]string{}
	for _, p := range pods.Items {
		out[p.Name] = p.Annotations[model.AnnotationVMState]
	}
	require.NotEmpty(t, out, "the lab places VMs on compute nodes")
	return out
}

func firstRunning(states map[string]string) string {
	for name, s := range states {
		if s == model.VMRunning {
			return name
		}
	}
	return ""
}

func recordBMM(t *testing.T, ctx context.Context, env *e2e.Env, p api.BMMPatch) {
	t.Helper()
	require.NoError(t, env.Update(ctx, api.ClusterID(env.Cluster), api.UpdateRecordBMM, nil, p))
}
