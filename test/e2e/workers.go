package e2e

import (
	"context"
	"time"

	"github.com/rackroll/rackroll/activities/kube"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/kubectl/pkg/util/podutils"
)

// WorkerNamespace is where PlaceWorker puts the pods, as deploy/ does.
const WorkerNamespace = "rackroll"

// PlaceWorker places a pod labelled as deploy/'s rackroll workers on node
// and waits until the lab's kubelet has it Ready: what the drain's
// last-worker rule (internal/workerguard) looks for.
func (e *Env) PlaceWorker(ctx context.Context, name, node string) {
	e.T.Helper()
	cs := e.Clientset(ctx)
	_, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: WorkerNamespace}}, metav1.CreateOptions{})
	if !apierrors.IsAlreadyExists(err) {
		require.NoError(e.T, err)
	}
	sel, err := labels.ConvertSelectorToLabelsMap(kube.DefaultWorkerPods)
	require.NoError(e.T, err)
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: WorkerNamespace, Labels: sel},
		Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "worker", Image: "rackroll-worker"}}}}
	_, err = cs.CoreV1().Pods(WorkerNamespace).Create(ctx, p, metav1.CreateOptions{})
	require.NoError(e.T, err)
	e.Eventually(time.Minute, name+" Ready on "+node, func() bool { return e.WorkerReady(ctx, name) })
}

// WorkerReady reports whether the worker pod name exists, is not being
// deleted and is Ready.
func (e *Env) WorkerReady(ctx context.Context, name string) bool {
	p, err := e.Clientset(ctx).CoreV1().Pods(WorkerNamespace).Get(ctx, name, metav1.GetOptions{})
	return err == nil && p.DeletionTimestamp == nil && podutils.IsPodReady(p)
}
