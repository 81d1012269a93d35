package kubesim

import (
	"testing"
	"time"

	"k8s.io/kubectl/pkg/util/podutils"

	"github.com/rackroll/rackroll/internal/lab/faults"
	"github.com/rackroll/rackroll/internal/model"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestDesiredView(t *testing.T) {
	on := MachineState{Powered: true, OSRunning: true}
	cases := []struct {
		name    string
		st      MachineState
		faults  map[faults.Kind]bool
		ready   corev1.ConditionStatus
		posting bool
	}{
		{"running", on, nil, corev1.ConditionTrue, true},
		{"powered off", MachineState{}, nil, corev1.ConditionUnknown, false},
		{"booting", MachineState{Powered: true}, nil, corev1.ConditionFalse, true},
		{"node-not-ready", on, map[faults.Kind]bool{faults.NodeNotReady: true}, corev1.ConditionFalse, true},
		{"node-unknown", on, map[faults.Kind]bool{faults.NodeUnknown: true}, corev1.ConditionUnknown, false},
		{"readonly-rootfs stays Ready", on, map[faults.Kind]bool{faults.ReadOnlyRootFS: true}, corev1.ConditionTrue, true},
	}
	for _, c := range cases {
		v := desiredView(c.st, c.faults)
		if v.ready != c.ready || v.posting != c.posting {
			t.Errorf("%s: got %s posting=%v", c.name, v.ready, v.posting)
		}
	}
}

func TestApplyViewKeepsHeartbeatsOfASilentKubelet(t *testing.T) {
	t0, t1 := time.Unix(100, 0), time.Unix(200, 0)
	var st corev1.NodeStatus
	if !applyView(&st, desiredView(MachineState{Powered: true, OSRunning: true}, map[faults.Kind]bool{faults.ReadOnlyRootFS: true}), t0, true) {
		t.Fatal("first apply must write")
	}
	if c := findCond(st, model.ConditionReadOnlyRootFilesystem); c == nil || c.Status != corev1.ConditionTrue {
		t.Fatalf("rofs condition %+v", c)
	}
	if applyView(&st, desiredView(MachineState{Powered: true, OSRunning: true}, map[faults.Kind]bool{faults.ReadOnlyRootFS: true}), t1, false) {
		t.Fatal("no change and no heartbeat due: nothing to write")
	}
	if !applyView(&st, desiredView(MachineState{}, nil), t1, false) {
		t.Fatal("power off must write")
	}
	r := findCond(st, corev1.NodeReady)
	if r.Status != corev1.ConditionUnknown || !r.LastHeartbeatTime.Time.Equal(t0) || !r.LastTransitionTime.Time.Equal(t1) {
		t.Fatalf("ready after power off: %+v", r)
	}
	if c := findCond(st, corev1.NodeMemoryPressure); c.Status != corev1.ConditionUnknown {
		t.Fatalf("memory pressure %+v", c)
	}
}

func findCond(st corev1.NodeStatus, typ corev1.NodeConditionType) *corev1.NodeCondition {
	for i := range st.Conditions {
		if st.Conditions[i].Type == typ {
			return &st.Conditions[i]
		}
	}
	return nil
}

func TestHeartbeatDueSpreadsNodes(t *testing.T) {
	last := time.Unix(0, 0)
	every := 10 * time.Second
	if heartbeatDue("n", last, last.Add(every-time.Millisecond), every) {
		t.Fatal("due before the period")
	}
	if !heartbeatDue("n", last, last.Add(every*5/4+time.Millisecond), every) {
		t.Fatal("not due after the longest period")
	}
}

func TestDesiredPodStatus(t *testing.T) {
	now := time.Unix(100, 0)
	p := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "x"}}}}
	if _, changed := desiredPodStatus(p, false, now); changed {
		t.Fatal("a pending pod on a NotReady node must wait")
	}
	st, changed := desiredPodStatus(p, true, now)
	if !changed || st.Phase != corev1.PodRunning || len(st.ContainerStatuses) != 1 || !st.ContainerStatuses[0].Ready {
		t.Fatalf("running status %+v", st)
	}
	p.Status = st
	if _, changed := desiredPodStatus(p, true, now); changed {
		t.Fatal("second pass must be a no-op")
	}
	st, _ = desiredPodStatus(p, false, now)
	p.Status = st
	if podutils.IsPodReady(p) || p.Status.Phase != corev1.PodRunning {
		t.Fatalf("on a NotReady node: %+v", p.Status)
	}
	vm := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{model.LabelWorkload: model.WorkloadVM},
		Annotations: map[string]string{model.AnnotationVMState: model.VMStopped}}, Spec: p.Spec}
	st, _ = desiredPodStatus(vm, true, now)
	vm.Status = st
	if podutils.IsPodReady(vm) {
		t.Fatal("a stopped VM is not Ready")
	}
}

func TestTerminationDelay(t *testing.T) {
	s := New(nil, []Machine{{Name: "m", Role: "compute"}}, Options{})
	p := &corev1.Pod{Spec: corev1.PodSpec{NodeName: "m"}}
	grace := int64(7)
	p.DeletionGracePeriodSeconds = &grace
	if d := s.terminationDelay(p); d != 7*time.Second {
		t.Fatalf("pod grace: %v", d)
	}
	s.SetFault("m", faults.SlowDrain, true)
	if d := s.terminationDelay(p); d != 70*time.Second {
		t.Fatalf("slow-drain: %v", d)
	}
	s2 := New(nil, []Machine{{Name: "m"}}, Options{Drain: time.Second})
	if d := s2.terminationDelay(p); d != time.Second {
		t.Fatalf("Options.Drain: %v", d)
	}
}

func TestLabelDiffAndReplicaIndex(t *testing.T) {
	changed, removed := labelDiff(map[string]string{"a": "1", "b": "2"}, map[string]string{"a": "1", "b": "3", "c": ""})
	if len(changed) != 2 || changed["b"] != "3" || changed["c"] != "" || len(removed) != 0 {
		t.Fatalf("changed %v removed %v", changed, removed)
	}
	if _, removed := labelDiff(map[string]string{"a": "1"}, nil); len(removed) != 1 {
		t.Fatal("removal not seen")
	}
	if replicaIndex("app-n1", "app-n1-3") != 3 || replicaIndex("app-n1", "app-n10-3") != -1 || replicaIndex("app-n1", "vm-n1-0") != -1 {
		t.Fatal("replicaIndex")
	}
}
