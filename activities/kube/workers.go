package kube

import (
	"context"
	"fmt"

	"github.com/rackroll/rackroll/internal/workerguard"
	"go.temporal.io/sdk/temporal"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"
	"k8s.io/kubectl/pkg/drain"
	"k8s.io/kubectl/pkg/util/podutils"
)

// DefaultWorkerPods selects rackroll's own worker pods: the label
// deploy/deployment.yaml puts on them (the worker's --worker-pods flag).
const DefaultWorkerPods = "app.kubernetes.io/name=rackroll-worker"

// ErrLastWorker: a drain would have evicted the last Ready rackroll worker
// and none came Ready elsewhere within the drain's limit (non-retryable:
// the server fails naming the pod and node, and stays cordoned).
const ErrLastWorker = "LastWorker"

// ValidWorkerPods checks a --worker-pods label selector.
func ValidWorkerPods(sel string) error {
	if _, err := labels.Parse(sel); err != nil {
		return fmt.Errorf("--worker-pods %q is not a label selector (%v): want the labels of the worker's pods, e.g. %s", sel, err, DefaultWorkerPods)
	}
	return nil
}

// judgeWorkers reads the worker pods in every namespace and judges a drain
// of node (internal/workerguard).
func (a *Activities) judgeWorkers(ctx context.Context, cs kubernetes.Interface, node string) (workerguard.Verdict, error) {
	list, err := cs.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{LabelSelector: a.opts.WorkerPods})
	if err != nil {
		return workerguard.Verdict{}, fmt.Errorf("list rackroll worker pods (%s): %w", a.opts.WorkerPods, err)
	}
	pods := make([]workerguard.Pod, 0, len(list.Items))
	for i := range list.Items {
		p := &list.Items[i]
		if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		pods = append(pods, workerguard.Pod{Namespace: p.Namespace, Name: p.Name, Node: p.Spec.NodeName,
			Ready: p.DeletionTimestamp == nil && podutils.IsPodReady(p)})
	}
	return workerguard.Judge(pods, node, a.opts.WorkerPods), nil
}

// keepFilter leaves the pods v keeps on the node, saying why in the
// drain's log.
func keepFilter(v workerguard.Verdict) drain.PodFilter {
	return func(p corev1.Pod) drain.PodDeleteStatus {
		for _, k := range v.Keep {
			if k.Namespace == p.Namespace && k.Name == p.Name {
				return drain.MakePodDeleteStatusWithWarning(false, "kept: "+v.Reason)
			}
		}
		return drain.MakePodDeleteStatusOkay()
	}
}

func lastWorker(node string, v workerguard.Verdict) error {
	return temporal.NewNonRetryableApplicationError(fmt.Sprintf("drain of node %s refused: %s, and no other came Ready within the drain's limit; "+
		"run the workers on servers not drained together (docs/install.md#where-the-workers-run)", node, v.Reason), ErrLastWorker, nil)
}
