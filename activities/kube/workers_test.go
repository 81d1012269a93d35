package kube

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

// workerPod is a Ready rackroll worker pod (deploy/'s label) on node.
func workerPod(name, node string) *corev1.Pod {
	return fakePod(name, node, func(p *corev1.Pod) {
		p.Namespace = "rackroll"
		p.Labels["app.kubernetes.io/name"] = "rackroll-worker"
		p.Status.Phase = corev1.PodRunning
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	})
}

// evictByDelete: the fake serves no eviction subresource, so the helper
// deletes instead (the eviction path is the integration tests').
func evictByDelete(cs *fake.Clientset) {
	cs.Resources = []*metav1.APIResourceList{{GroupVersion: "v1", APIResources: []metav1.APIResource{{Name: "pods", Kind: "Pod"}}}}
}

func podExists(t *testing.T, cs *fake.Clientset, ns, name string) bool {
	t.Helper()
	_, err := cs.CoreV1().Pods(ns).Get(bg, name, metav1.GetOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	return err == nil
}

// The last Ready worker on the node is kept while the rest is drained,
// and at the drain's limit the drain fails, non-retryable, naming the pod
// and node, instead of letting the reimage take it.
func TestDrainRefusesToEvictTheLastWorker(t *testing.T) {
	a, cs := fastActs(fakeNode("n1", corev1.ConditionTrue, "1"), fakeNode("n2", corev1.ConditionTrue, "1"),
		fakePod("app", "n1", nil), workerPod("rackroll-worker-a", "n1"),
		func() *corev1.Pod { p := workerPod("rackroll-worker-b", "n2"); p.Status.Conditions = nil; return p }())
	evictByDelete(cs)
	_, err := a.Drain(bg, DrainInput{Node: "n1", Timeout: 300 * time.Millisecond})
	typ, nonRetryable := appErrType(err)
	require.Equal(t, ErrLastWorker, typ, "%v", err)
	require.True(t, nonRetryable)
	for _, want := range []string{"drain of node n1 refused", "pod rackroll/rackroll-worker-a on node n1", "last Ready rackroll worker",
		DefaultWorkerPods, "not Ready: rackroll/rackroll-worker-b on n2"} {
		require.Contains(t, err.Error(), want)
	}
	require.False(t, podExists(t, cs, "t", "app"), "the rest of the node was drained")
	require.True(t, podExists(t, cs, "rackroll", "rackroll-worker-a"), "the last worker stays")
}

// While the last worker is kept the drain waits: once another worker is
// Ready on a node that is not being drained, it goes too and the drain
// completes.
func TestDrainEvictsTheWorkerOnceAnotherIsReady(t *testing.T) {
	a, cs := fastActs(fakeNode("n1", corev1.ConditionTrue, "1"), fakeNode("n2", corev1.ConditionTrue, "1"),
		fakePod("app", "n1", nil), workerPod("rackroll-worker-a", "n1"), workerPod("rackroll-worker-c", "n1"))
	evictByDelete(cs)
	type out struct {
		res DrainResult
		err error
	}
	done := make(chan out, 1)
	go func() { r, err := a.Drain(bg, DrainInput{Node: "n1", Timeout: time.Minute}); done <- out{r, err} }()
	// Of two workers on the node one goes (its replacement starts
	// elsewhere), the other stays until then.
	require.Eventually(t, func() bool {
		return !podExists(t, cs, "t", "app") && !podExists(t, cs, "rackroll", "rackroll-worker-c")
	},
		10*time.Second, 10*time.Millisecond)
	time.Sleep(100 * time.Millisecond) // several looks at the workers
	require.True(t, podExists(t, cs, "rackroll", "rackroll-worker-a"), "kept while it is the last")
	select {
	case o := <-done:
		t.Fatalf("the drain ended while the last worker was kept: %+v %v", o.res, o.err)
	default:
	}
	_, err := cs.CoreV1().Pods("rackroll").Create(bg, workerPod("rackroll-worker-b", "n2"), metav1.CreateOptions{})
	require.NoError(t, err)
	o := <-done
	require.NoError(t, o.err)
	require.True(t, o.res.Completed, "%+v", o.res)
	require.False(t, podExists(t, cs, "rackroll", "rackroll-worker-a"), "evicted once another worker was Ready")
}

func TestValidWorkerPods(t *testing.T) {
	require.NoError(t, ValidWorkerPods(DefaultWorkerPods))
	err := ValidWorkerPods("app in (")
	require.Error(t, err)
	require.True(t, strings.Contains(err.Error(), `--worker-pods "app in ("`) && strings.Contains(err.Error(), DefaultWorkerPods), err.Error())
}
