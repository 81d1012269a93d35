package kubesim

import (
	"context"
	"fmt"
	"maps"
	"testing"
	"time"

	"k8s.io/kubectl/pkg/util/podutils"

	"github.com/rackroll/rackroll/internal/model"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/lab/faults"
)

var bg = context.Background()

func TestSetupRegistersLabelledReadyNodesAndTenantWorkloads(t *testing.T) {
	s := startSite(t, Options{Workloads: true}, "kcp", "management:a", "compute", "compute")
	kcp, mgmt, c0 := s.prefix+"-kcp0", s.prefix+"-management1", s.prefix+"-compute2"

	n := s.node(t, mgmt)
	want := map[string]string{model.LabelRole: "management", model.LabelRack: s.prefix + "-rack1", model.LabelManagementGroup: "a",
		model.LabelRuntimeVersion: "4.1.2", LabelHostname: mgmt}
	for k, v := range want {
		if n.Labels[k] != v {
			t.Errorf("node %s label %s = %q, want %q", mgmt, k, n.Labels[k], v)
		}
	}
	if _, ok := s.node(t, kcp).Labels[model.LabelManagementGroup]; ok {
		t.Errorf("kcp node has a management-group label")
	}
	if c := nodeCondition(n, corev1.NodeReady); c == nil || c.Status != corev1.ConditionTrue {
		t.Fatalf("node %s Ready = %+v", mgmt, c)
	}

	pods, err := s.client.CoreV1().Pods(s.ns).List(bg, metav1.ListOptions{FieldSelector: "spec.nodeName=" + c0})
	if err != nil {
		t.Fatal(err)
	}
	var apps, running, stopped int
	for _, p := range pods.Items {
		if !podutils.IsPodReady(&p) && p.Annotations[model.AnnotationVMState] != model.VMStopped {
			t.Errorf("pod %s not Ready: %+v", p.Name, p.Status)
		}
		switch p.Labels[model.LabelWorkload] {
		case WorkloadApp:
			apps++
		case model.WorkloadVM:
			if p.Annotations[model.AnnotationVMState] == model.VMRunning {
				running++
			} else {
				stopped++
			}
		}
	}
	if apps != appReplicas || running != 1 || stopped != 1 {
		t.Fatalf("on %s: %d app pods, %d running and %d stopped VMs", c0, apps, running, stopped)
	}
	pdb, err := s.client.PolicyV1().PodDisruptionBudgets(s.ns).Get(bg, "app-"+c0, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if pdb.Status.DisruptionsAllowed != 1 || pdb.Status.CurrentHealthy != 2 || pdb.Status.ExpectedPods != 2 || pdb.Status.ObservedGeneration != pdb.Generation {
		t.Fatalf("pdb status %+v", pdb.Status)
	}
	// Setup is idempotent.
	if err := s.Setup(bg); err != nil {
		t.Fatalf("second Setup: %v", err)
	}
}

func TestPowerStateDrivesReadyAndOSImage(t *testing.T) {
	s := startSite(t, Options{Workloads: true}, "compute", "compute")
	bmm := s.prefix + "-compute0"

	s.SetMachineState(bmm, MachineState{Powered: false})
	eventually(t, "Ready Unknown after power off", func() (bool, string) {
		c := nodeCondition(s.node(t, bmm), corev1.NodeReady)
		return c.Status == corev1.ConditionUnknown && c.Message == msgUnknown, fmt.Sprintf("%+v", c)
	})
	// The node controller's part: pods on an Unknown node are not Ready.
	eventually(t, "pods not Ready on an Unknown node", func() (bool, string) {
		p, _ := s.client.CoreV1().Pods(s.ns).Get(bg, "app-"+bmm+"-0", metav1.GetOptions{})
		return p != nil && !podutils.IsPodReady(p), "still Ready"
	})
	s.SetMachineState(bmm, MachineState{Powered: true})
	eventually(t, "Ready False while booting", func() (bool, string) {
		c := nodeCondition(s.node(t, bmm), corev1.NodeReady)
		return c.Status == corev1.ConditionFalse, fmt.Sprintf("%+v", c)
	})
	s.SetMachineState(bmm, MachineState{Powered: true, OSRunning: true, RuntimeVersion: "4.2.0"})
	eventually(t, "Ready True on the new version", func() (bool, string) {
		n := s.node(t, bmm)
		return readyStatus(n) == corev1.ConditionTrue && n.Status.NodeInfo.OSImage == OSImage("4.2.0"), n.Status.NodeInfo.OSImage
	})
	if err := s.WaitSettled(bg); err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{events.NodeUnknown, events.NodeNotReady, events.NodeReady} {
		eventually(t, kind+" event", func() (bool, string) { return s.log.Count(kind, bmm) == 1, fmt.Sprint(s.log.Count(kind, bmm)) })
	}
	if n := s.log.Count(events.NodeLabel, bmm); n != 0 {
		t.Errorf("a stock kubelet relabelled its node: %d node-label events", n)
	}
	if s.log.Count(events.NodeUnknown, s.prefix+"-compute1") != 0 {
		t.Error("events for an untouched machine")
	}
}

func TestHeartbeatsAdvanceAndStopUnderNodeUnknown(t *testing.T) {
	s := startSite(t, Options{Heartbeat: 100 * time.Millisecond}, "management:b")
	bmm := s.prefix + "-management0"
	first := nodeCondition(s.node(t, bmm), corev1.NodeReady).LastHeartbeatTime
	eventually(t, "heartbeat advances", func() (bool, string) {
		return nodeCondition(s.node(t, bmm), corev1.NodeReady).LastHeartbeatTime.After(first.Time), "not yet"
	})
	s.SetFault(bmm, faults.NodeUnknown, true)
	eventually(t, "Ready Unknown under node-unknown", func() (bool, string) {
		return readyStatus(s.node(t, bmm)) == corev1.ConditionUnknown, "not yet"
	})
	// The event follows the write the test just saw.
	eventually(t, "one fault and one node-unknown event", func() (bool, string) {
		return s.log.Count(events.Fault, bmm) == 1 && s.log.Count(events.NodeUnknown, bmm) == 1, fmt.Sprintf("%+v", s.log.Events())
	})
	s.SetFault(bmm, faults.NodeUnknown, false)
	eventually(t, "Ready again", func() (bool, string) {
		return readyStatus(s.node(t, bmm)) == corev1.ConditionTrue, "not yet"
	})
}

func TestNodeFaultsShowAsConditions(t *testing.T) {
	s := startSite(t, Options{}, "compute")
	bmm := s.prefix + "-compute0"
	s.SetFault(bmm, faults.ReadOnlyRootFS, true)
	s.SetFault(bmm, faults.NodeNotReady, true)
	eventually(t, "ReadOnlyRootFilesystem True and Ready False", func() (bool, string) {
		n := s.node(t, bmm)
		c := nodeCondition(n, model.ConditionReadOnlyRootFilesystem)
		return c != nil && c.Status == corev1.ConditionTrue && readyStatus(n) == corev1.ConditionFalse, fmt.Sprintf("%+v", n.Status.Conditions)
	})
	if got := s.Faults(bmm); len(got) != 2 {
		t.Fatalf("Faults = %v", got)
	}
	s.SetFault(bmm, faults.ReadOnlyRootFS, false)
	s.SetFault(bmm, faults.NodeNotReady, false)
	eventually(t, "faults cleared", func() (bool, string) {
		n := s.node(t, bmm)
		return nodeCondition(n, model.ConditionReadOnlyRootFilesystem).Status == corev1.ConditionFalse && readyStatus(n) == corev1.ConditionTrue, "not yet"
	})
	s.SetFault(bmm, "reimage-fails", true) // the BMC emulator's: ignored here
	if s.log.Count(events.Fault, bmm) != 4 {
		t.Fatalf("want 4 fault events, got %d", s.log.Count(events.Fault, bmm))
	}
}

func TestCordonAndEvictionAreLoggedAndPDBIsEnforced(t *testing.T) {
	s := startSite(t, Options{Workloads: true, Drain: 200 * time.Millisecond}, "compute", "compute")
	c0, c1 := s.prefix+"-compute0", s.prefix+"-compute1"
	cordon(t, s, c0, true)
	eventually(t, "cordon event", func() (bool, string) { return s.log.Count(events.Cordon, c0) == 1, "none" })

	// With c1 cordoned too the replacement stays Pending, so the PDB
	// (maxUnavailable 1) must refuse the second eviction.
	cordon(t, s, c1, true)
	rs := "app-" + c0
	if err := evict(s, rs+"-0"); err != nil {
		t.Fatalf("first eviction: %v", err)
	}
	eventually(t, "a Pending replacement", func() (bool, string) {
		pods, _ := s.client.CoreV1().Pods(s.ns).List(bg, metav1.ListOptions{LabelSelector: labelApp + "=" + rs})
		for _, p := range pods.Items {
			if p.Spec.NodeName == "" && p.Status.Phase == corev1.PodPending {
				return true, ""
			}
		}
		return false, fmt.Sprint(len(pods.Items), " pods")
	})
	if err := evict(s, rs+"-1"); !apierrors.IsTooManyRequests(err) {
		t.Fatalf("second eviction without a Ready replacement: want 429, got %v", err)
	}
	cordon(t, s, c1, false)
	eventually(t, "second eviction allowed once the replacement is Ready", func() (bool, string) {
		err := evict(s, rs+"-1")
		return err == nil, fmt.Sprint(err)
	})
	eventually(t, "replacements Ready on the other node", func() (bool, string) {
		pods, _ := s.client.CoreV1().Pods(s.ns).List(bg, metav1.ListOptions{LabelSelector: labelApp + "=" + rs})
		ready := 0
		for _, p := range pods.Items {
			if p.Spec.NodeName == c0 {
				return false, "pod " + p.Name + " still on " + c0
			}
			if p.Spec.NodeName == c1 && podutils.IsPodReady(&p) {
				ready++
			}
		}
		return ready == appReplicas, fmt.Sprintf("%d ready on %s", ready, c1)
	})
	eventually(t, "two evict events", func() (bool, string) {
		return s.log.Count(events.Evict, c0) == 2, fmt.Sprint(s.log.Count(events.Evict, c0))
	})
	cordon(t, s, c0, false)
	eventually(t, "uncordon event", func() (bool, string) { return s.log.Count(events.Uncordon, c0) == 1, "none" })
}

func TestPDBBlocksFaultRefusesEvictions(t *testing.T) {
	s := startSite(t, Options{Workloads: true, Drain: 100 * time.Millisecond}, "compute", "compute")
	c0 := s.prefix + "-compute0"
	s.SetFault(c0, faults.PDBBlocks, true)
	eventually(t, "PDB blocked", func() (bool, string) {
		pdb, _ := s.client.PolicyV1().PodDisruptionBudgets(s.ns).Get(bg, "app-"+c0, metav1.GetOptions{})
		return pdb.Status.DisruptionsAllowed == 0, fmt.Sprintf("%+v", pdb.Status)
	})
	if err := evict(s, "app-"+c0+"-0"); !apierrors.IsTooManyRequests(err) {
		t.Fatalf("eviction under pdb-blocks: want 429, got %v", err)
	}
	s.SetFault(c0, faults.PDBBlocks, false)
	eventually(t, "eviction allowed after the fault clears", func() (bool, string) {
		err := evict(s, "app-"+c0+"-0")
		return err == nil, fmt.Sprint(err)
	})
}

func TestDeletedNodeStaysDeletedUntilTheOSBootsAgain(t *testing.T) {
	s := startSite(t, Options{Workloads: true, Drain: 100 * time.Millisecond}, "compute", "compute")
	c0 := s.prefix + "-compute0"
	// Labels set since registration: another's, and a role moved.
	patch := []byte(`{"metadata":{"labels":{"example.com/extra":"set","rackroll.io/role":"management"}}}`)
	if _, err := s.client.CoreV1().Nodes().Patch(bg, c0, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "node-label event", func() (bool, string) { return s.log.Count(events.NodeLabel, c0) == 1, "none" })
	cordon(t, s, c0, true)
	eventually(t, "cordon event", func() (bool, string) { return s.log.Count(events.Cordon, c0) == 1, "none" })
	if err := s.client.CoreV1().Nodes().Delete(bg, c0, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "node-deleted event", func() (bool, string) { return s.log.Count(events.NodeDeleted, c0) == 1, "none" })
	// The pod garbage collector moves the ReplicaSet's pods; VMs stay.
	eventually(t, "app pods replaced elsewhere", func() (bool, string) {
		pods, _ := s.client.CoreV1().Pods(s.ns).List(bg, metav1.ListOptions{FieldSelector: "spec.nodeName=" + c0})
		for _, p := range pods.Items {
			if p.Labels[model.LabelWorkload] == WorkloadApp {
				return false, p.Name
			}
		}
		return len(pods.Items) == vmsPerNode, fmt.Sprintf("%d pods", len(pods.Items))
	})
	if err := s.WaitSettled(bg); err != nil {
		t.Fatal(err)
	}
	if _, err := s.client.CoreV1().Nodes().Get(bg, c0, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("node re-registered while the OS kept running: %v", err)
	}
	s.SetMachineState(c0, MachineState{Powered: false})
	s.SetMachineState(c0, MachineState{Powered: true, OSRunning: true, RuntimeVersion: "4.2.0"})
	eventually(t, "re-registered on boot", func() (bool, string) {
		n, err := s.client.CoreV1().Nodes().Get(bg, c0, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return readyStatus(n) == corev1.ConditionTrue, "not Ready"
	})
	n := s.node(t, c0)
	// A kubelet registers schedulable; the log says the cordon is gone.
	if n.Spec.Unschedulable {
		t.Fatal("re-registered cordoned")
	}
	eventually(t, "uncordon event", func() (bool, string) { return s.log.Count(events.Uncordon, c0) == 1, "none" })
	// A new Node has the kubelet's labels only: its --node-labels (the
	// role it was set up with, the booted version) and the well-known ones.
	want := map[string]string{LabelHostname: c0, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
		model.LabelRole: "compute", model.LabelRack: s.prefix + "-rack1", model.LabelRuntimeVersion: "4.2.0"}
	if !maps.Equal(n.Labels, want) {
		t.Fatalf("re-registered labels %v, want %v", n.Labels, want)
	}
	// The log shows what the registration changed, marked as such.
	var reg []events.Event
	for _, e := range s.log.Events() {
		if e.Kind == events.NodeLabel && e.Detail[events.Registered] == true {
			reg = append(reg, e)
		}
	}
	if len(reg) != 1 || fmt.Sprint(reg[0].Detail["labels"]) != fmt.Sprint(map[string]string{model.LabelRole: "compute", model.LabelRuntimeVersion: "4.2.0"}) ||
		fmt.Sprint(reg[0].Detail["removed"]) != "[example.com/extra]" {
		t.Fatalf("registration's node-label events: %+v", reg)
	}
	eventually(t, "one node-ready event", func() (bool, string) {
		return s.log.Count(events.NodeReady, c0) == 1, fmt.Sprint(s.log.Count(events.NodeReady, c0))
	})
}

func cordon(t *testing.T, s *testSite, node string, on bool) {
	t.Helper()
	patch := fmt.Appendf(nil, `{"spec":{"unschedulable":%v}}`, on)
	if _, err := s.client.CoreV1().Nodes().Patch(bg, node, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
}

func evict(s *testSite, pod string) error {
	return s.client.PolicyV1().Evictions(s.ns).Evict(bg, &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: pod, Namespace: s.ns}})
}
