package kube

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/model"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"
)

var bg = context.Background()

// fakeNode shows version both in the lab's label and in its osImage.
func fakeNode(name string, ready corev1.ConditionStatus, version string) *corev1.Node {
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{model.LabelRuntimeVersion: version}},
		Status: corev1.NodeStatus{NodeInfo: corev1.NodeSystemInfo{OSImage: "rackroll " + version + " (lab)"},
			Conditions: []corev1.NodeCondition{
				{Type: corev1.NodeReady, Status: ready, Reason: "KubeletReady", LastTransitionTime: metav1.NewTime(time.Unix(100, 0))},
			}},
	}
}

func fakePod(name, node string, mod func(*corev1.Pod)) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "t", Labels: map[string]string{}, Annotations: map[string]string{}},
		Spec: corev1.PodSpec{NodeName: node}}
	if mod != nil {
		mod(p)
	}
	return p
}

func vm(state string, ready bool) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Labels[model.LabelWorkload] = model.WorkloadVM
		p.Annotations[model.AnnotationVMState] = state
		if ready {
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
		}
	}
}

func fastActs(objs ...runtime.Object) (*Activities, *fake.Clientset) {
	cs := fake.NewClientset(objs...)
	// The fake ignores field selectors; drains and VM lookups select pods
	// by spec.nodeName, so apply it here as the apiserver would.
	cs.PrependReactor("list", "pods", func(action k8stesting.Action) (bool, runtime.Object, error) {
		r := action.(k8stesting.ListAction).GetListRestrictions()
		if r.Fields == nil || r.Fields.Empty() {
			return false, nil, nil
		}
		obj, err := cs.Tracker().List(corev1.SchemeGroupVersion.WithResource("pods"), corev1.SchemeGroupVersion.WithKind("Pod"), action.GetNamespace())
		if err != nil {
			return true, nil, err
		}
		list := obj.(*corev1.PodList)
		var keep []corev1.Pod
		for _, p := range list.Items {
			if r.Fields.Matches(fields.Set{"spec.nodeName": p.Spec.NodeName}) && r.Labels.Matches(labels.Set(p.Labels)) {
				keep = append(keep, p)
			}
		}
		list.Items = keep
		return true, list, nil
	})
	return New(Static(cs), Options{PollInterval: 10 * time.Millisecond, HeartbeatInterval: 10 * time.Millisecond, EvictRetryDelay: 10 * time.Millisecond}), cs
}

func appErrType(err error) (string, bool) {
	var ae *temporal.ApplicationError
	if errors.As(err, &ae) {
		return ae.Type(), ae.NonRetryable()
	}
	return "", false
}

func TestNodeStatusFrom(t *testing.T) {
	n := fakeNode("n1", corev1.ConditionFalse, "4.2.0")
	n.Spec.Unschedulable = true
	n.Status.Conditions = append(n.Status.Conditions, corev1.NodeCondition{Type: model.ConditionReadOnlyRootFilesystem,
		Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(time.Unix(200, 0))})
	st := nodeStatusFrom(n, labelSource)
	if !st.Exists || st.Ready != "False" || st.IsReady() || !st.ReadOnlyRootFS || !st.Unschedulable || st.RuntimeVersion != "4.2.0" ||
		!st.ReadyTransition.Equal(time.Unix(100, 0)) || !st.ReadOnlyRootFSSince.Equal(time.Unix(200, 0)) {
		t.Fatalf("%+v", st)
	}
	if s := st.String(); !strings.Contains(s, "Ready=False") || !strings.Contains(s, "read-only") || !strings.Contains(s, "cordoned") {
		t.Fatalf("String() = %q", s)
	}
	if !readyFor(nodeStatusFrom(fakeNode("n", "True", "1"), labelSource), "") || readyFor(nodeStatusFrom(fakeNode("n", "True", "1"), labelSource), "2") {
		t.Fatal("readyFor")
	}
}

func TestCordonUncordonAreIdempotent(t *testing.T) {
	a, cs := fastActs(fakeNode("n1", corev1.ConditionTrue, "1"))
	for range 2 {
		if err := a.Cordon(bg, "n1"); err != nil {
			t.Fatal(err)
		}
	}
	n, _ := cs.CoreV1().Nodes().Get(bg, "n1", metav1.GetOptions{})
	if !n.Spec.Unschedulable {
		t.Fatal("not cordoned")
	}
	for range 2 {
		if err := a.Uncordon(bg, "n1"); err != nil {
			t.Fatal(err)
		}
	}
	n, _ = cs.CoreV1().Nodes().Get(bg, "n1", metav1.GetOptions{})
	if n.Spec.Unschedulable {
		t.Fatal("still cordoned")
	}
}

func TestMissingNodeIsANonRetryableNodeNotFound(t *testing.T) {
	a, _ := fastActs()
	for name, err := range map[string]error{
		"cordon": a.Cordon(bg, "ghost"),
		"label":  a.LabelNode(bg, "ghost", map[string]string{"a": "b"}),
	} {
		if typ, nonRetryable := appErrType(err); typ != ErrNodeNotFound || !nonRetryable {
			t.Errorf("%s: got %v", name, err)
		}
	}
	if err := a.DeleteNode(bg, "ghost"); err != nil {
		t.Errorf("DeleteNode of a missing node: %v", err)
	}
	st, err := a.ReadNode(bg, "ghost", labelSource)
	if err != nil || st.Exists {
		t.Errorf("ReadNode of a missing node: %+v, %v", st, err)
	}
	if typ, _ := appErrType(a.Cordon(bg, "")); typ != ErrInvalidInput {
		t.Error("empty node name accepted")
	}
}

func TestLabelAndDeleteNode(t *testing.T) {
	a, cs := fastActs(fakeNode("n1", corev1.ConditionTrue, "1"))
	if err := a.LabelNode(bg, "n1", map[string]string{"rackroll.io/role": "management"}); err != nil {
		t.Fatal(err)
	}
	st, err := a.ReadNode(bg, "n1", labelSource)
	if err != nil || st.Labels["rackroll.io/role"] != "management" || st.Labels[model.LabelRuntimeVersion] != "1" {
		t.Fatalf("%+v %v", st, err)
	}
	for range 2 {
		if err := a.DeleteNode(bg, "n1"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := cs.CoreV1().Nodes().Get(bg, "n1", metav1.GetOptions{}); err == nil {
		t.Fatal("node not deleted")
	}
}

func TestShutdownThenStartRestartsOnlyRunningVMs(t *testing.T) {
	a, cs := fastActs(
		fakePod("vm-a", "n1", vm(model.VMRunning, false)),
		fakePod("vm-b", "n1", vm(model.VMStopped, false)),
		fakePod("vm-other", "n2", vm(model.VMRunning, false)),
		fakePod("app", "n1", nil),
	)
	for range 2 { // a retried shutdown reports the same VMs
		res, err := a.ShutdownVMs(bg, ShutdownInput{Node: "n1", Timeout: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.WereRunning) != 1 || res.WereRunning[0] != "t/vm-a" || len(res.Stopped) != 1 || res.TimedOut {
			t.Fatalf("shutdown: %+v", res)
		}
	}
	ann := func(name string) map[string]string {
		p, _ := cs.CoreV1().Pods("t").Get(bg, name, metav1.GetOptions{})
		return p.Annotations
	}
	if ann("vm-a")[model.AnnotationVMState] != model.VMStopped || ann("vm-a")[model.AnnotationVMRestart] != "true" || ann("vm-other")[model.AnnotationVMState] != model.VMRunning {
		t.Fatalf("annotations after shutdown: a=%v other=%v", ann("vm-a"), ann("vm-other"))
	}
	res, err := a.StartVMs(bg, "n1")
	if err != nil || len(res.Started) != 1 || res.Started[0] != "t/vm-a" {
		t.Fatalf("start: %+v %v", res, err)
	}
	if _, marked := ann("vm-a")[model.AnnotationVMRestart]; marked || ann("vm-a")[model.AnnotationVMState] != model.VMRunning || ann("vm-b")[model.AnnotationVMState] != model.VMStopped {
		t.Fatalf("after start: a=%v b=%v", ann("vm-a"), ann("vm-b"))
	}
	if res, _ := a.StartVMs(bg, "n1"); len(res.Started) != 0 {
		t.Fatalf("second StartVMs restarted %v", res.Started)
	}
}

func TestShutdownThatDoesNotFinishTimesOutWithoutError(t *testing.T) {
	// No kubelet behind the fake: the VM pod stays Ready.
	a, _ := fastActs(fakePod("vm-a", "n1", vm(model.VMRunning, true)))
	res, err := a.ShutdownVMs(bg, ShutdownInput{Node: "n1", Timeout: 50 * time.Millisecond})
	if err != nil || !res.TimedOut || len(res.WereRunning) != 1 || len(res.Stopped) != 0 {
		t.Fatalf("%+v %v", res, err)
	}
}

func TestWaitNodeReadyTimeoutCarriesTheLastStatus(t *testing.T) {
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestActivityEnvironment()
	a, _ := fastActs(fakeNode("n1", corev1.ConditionTrue, "4.1.2"))
	env.RegisterActivity(a)
	var beats atomic.Int32
	env.SetOnActivityHeartbeatListener(func(*activity.Info, converter.EncodedValues) { beats.Add(1) })
	_, err := env.ExecuteActivity(a.WaitNodeReady, WaitReadyInput{Node: "n1", Version: "4.2.0", Timeout: 100 * time.Millisecond})
	var ae *temporal.ApplicationError
	if !errors.As(err, &ae) || ae.Type() != ErrNodeNotReady || !ae.NonRetryable() || !strings.Contains(ae.Error(), `want version 4.2.0 from osImage (its first major.minor.patch, the default): osImage "rackroll 4.1.2 (lab)"`) {
		t.Fatalf("got %v", err)
	}
	var last NodeStatus
	if err := ae.Details(&last); err != nil || last.RuntimeVersion != "4.1.2" || !last.IsReady() {
		t.Fatalf("details %+v %v", last, err)
	}
	if beats.Load() == 0 {
		t.Fatal("no heartbeat while waiting")
	}
	val, err := env.ExecuteActivity(a.WaitNodeReady, WaitReadyInput{Node: "n1", Version: "4.1.2", Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if err := val.Get(&last); err != nil || !last.IsReady() {
		t.Fatalf("%+v %v", last, err)
	}
}

func TestDrainWithFakeEvictsAllButVMsAndDaemonSets(t *testing.T) {
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: "t", UID: "ds-uid"}}
	owned := func(kind, name string) func(*corev1.Pod) {
		return func(p *corev1.Pod) {
			p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: kind, Name: name, UID: "uid-" + types.UID(name), Controller: ptr.To(true)}}
		}
	}
	a, cs := fastActs(fakeNode("n1", corev1.ConditionTrue, "1"), ds,
		fakePod("app", "n1", owned("ReplicaSet", "rs")),
		fakePod("bare", "n1", func(p *corev1.Pod) {
			p.Spec.Volumes = []corev1.Volume{{Name: "s", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
		}),
		fakePod("agent-x", "n1", owned("DaemonSet", "agent")),
		fakePod("vm-a", "n1", vm(model.VMRunning, true)),
		fakePod("elsewhere", "n2", nil),
	)
	// The fake serves no eviction subresource, so the helper deletes
	// instead; the eviction path is covered by the integration tests.
	cs.Resources = []*metav1.APIResourceList{{GroupVersion: "v1", APIResources: []metav1.APIResource{{Name: "pods", Kind: "Pod"}}}}
	res, err := a.Drain(bg, DrainInput{Node: "n1", Timeout: time.Minute})
	if err != nil || !res.Completed || res.Remaining != 0 || res.TimedOut {
		t.Fatalf("%+v %v", res, err)
	}
	left := map[string]bool{}
	pods, _ := cs.CoreV1().Pods("t").List(bg, metav1.ListOptions{})
	for _, p := range pods.Items {
		left[p.Name] = true
	}
	if left["app"] || left["bare"] || !left["agent-x"] || !left["vm-a"] || !left["elsewhere"] {
		t.Fatalf("pods left: %v", left)
	}
	n, _ := cs.CoreV1().Nodes().Get(bg, "n1", metav1.GetOptions{})
	if !n.Spec.Unschedulable {
		t.Fatal("drain did not cordon")
	}
}

func TestBadInputsAreRejectedBeforeAnySideEffect(t *testing.T) {
	a, _ := fastActs(fakeNode("n1", corev1.ConditionTrue, "1"))
	_, err1 := a.Drain(bg, DrainInput{Node: "n1", Timeout: -time.Second})
	_, err2 := a.ShutdownVMs(bg, ShutdownInput{Node: ""})
	_, err3 := a.WaitNodeReady(bg, WaitReadyInput{Node: "n1", Timeout: -1})
	for i, err := range []error{err1, err2, err3} {
		if typ, nonRetryable := appErrType(err); typ != ErrInvalidInput || !nonRetryable {
			t.Errorf("case %d: %v", i, err)
		}
	}
	if st, _ := a.ReadNode(bg, "n1", labelSource); st.Unschedulable {
		t.Error("a rejected drain cordoned the node")
	}
}

func TestKubeconfigSourceErrorsNameTheFile(t *testing.T) {
	a := New(Kubeconfig("/nonexistent/kubeconfig"), Options{})
	err := a.Cordon(bg, "n1")
	if typ, nonRetryable := appErrType(err); typ != ErrConfig || !nonRetryable || !strings.Contains(err.Error(), "/nonexistent/kubeconfig") {
		t.Fatalf("got %v", err)
	}
}
