package controlplane_test

import (
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/lab/faults"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Issue 34: a Node deleted and registered again carries its kubelet's
// --node-labels only (Kubernetes docs, "Self-registration of Nodes";
// kubernetes/kubernetes#59314), as the lab's kubelet now does. The failed
// KCP of a failover is management in the ledger; its machine, repaired and
// replaced after its Node was deleted, registers as the kcp it was set up
// as, with no management group. The health monitor sees it and the ledger
// labels it again: the labels come back from rackroll, not from the lab.
func TestE2EReregisteredNodeGetsItsLabelsFromRackroll(t *testing.T) {
	t.Parallel()
	env := e2e.Start(t, "../../examples/two-rack.yaml", e2e.Options{Mutate: e2e.FastRemediation}).StartMonitor()
	const kcp = "rack1-mgmt1"
	env.KillServer(kcp)
	ctx := env.Context(4 * time.Minute)
	env.FailedOver(ctx, kcp)
	b := env.BMM(kcp)
	require.Equal(t, model.RoleManagement, b.Roles[0])
	require.NotEmpty(t, b.ManagementGroup)

	// The hardware is repaired; the Node is gone (the ladder's removal,
	// or an operator's kubectl delete node).
	require.NoError(t, env.Lab.SetFault(kcp, faults.PowerOnFails, 0, true))
	require.NoError(t, env.Lab.SetFault(kcp, faults.NodeUnknown, 0, true))
	kc := env.Clientset(ctx)
	if err := kc.CoreV1().Nodes().Delete(ctx, b.NodeName, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		require.NoError(t, err)
	}
	env.Eventually(time.Minute, "node "+b.NodeName+" deleted", func() bool {
		_, err := kc.CoreV1().Nodes().Get(ctx, b.NodeName, metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	})
	var res api.ActionResult
	require.NoError(t, env.StartAction(ctx, 1, api.ActionInput{BMM: kcp, Action: api.ActionReplace}).Get(ctx, &res), res.Message)

	want := model.ManagedNodeLabels(env.BMM(kcp))
	env.Eventually(time.Minute, "the ledger's labels on "+b.NodeName, func() bool {
		n, err := kc.CoreV1().Nodes().Get(ctx, b.NodeName, metav1.GetOptions{})
		return err == nil && len(model.NodeLabelDrift(want, n.Labels)) == 0
	})
	// The log: the kubelet registered it as kcp (the lab), then rackroll
	// labelled it management (a patch, not a registration).
	var registered, relabelled bool
	deleted := false
	for _, e := range env.Events() {
		if e.BMM != kcp {
			continue
		}
		switch {
		case e.Kind == events.NodeDeleted:
			deleted, registered, relabelled = true, false, false
		case e.Kind == events.NodeLabel && deleted:
			ls, _ := e.Detail["labels"].(map[string]any)
			if reg, _ := e.Detail[events.Registered].(bool); reg {
				registered = ls[model.LabelRole] == string(model.RoleKCP)
			} else if registered && ls[model.LabelRole] == string(model.RoleManagement) {
				relabelled = true
			}
		}
	}
	require.True(t, registered, "the kubelet registered the node with its own role label (kcp)")
	require.True(t, relabelled, "rackroll labelled it management again")
	env.RecordHistoriesAs("reregister_", api.MonitorID(env.Cluster))
}
