package kube

import (
	"fmt"
	"k8s.io/kubectl/pkg/util/podutils"
	"sync/atomic"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"

	"github.com/rackroll/rackroll/internal/model"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/lab/faults"
	"github.com/rackroll/rackroll/internal/lab/kubesim"
)

func TestCordonAndUncordonNode(t *testing.T) {
	s := newSite(t, 0)
	s.run(t, nil, s.acts.Cordon, s.c0)
	s.run(t, nil, s.acts.Cordon, s.c0) // idempotent
	st := s.readNode(t, s.c0)
	if !st.Unschedulable || !st.IsReady() || st.RuntimeVersion != "4.1.2" || st.Labels[model.LabelRole] != "compute" {
		t.Fatalf("after cordon: %+v", st)
	}
	s.run(t, nil, s.acts.Uncordon, s.c0)
	st = s.readNode(t, s.c0)
	if st.Unschedulable {
		t.Fatal("still cordoned")
	}
	eventually(t, "one cordon and one uncordon event", func() (bool, string) {
		return s.log.Count(events.Cordon, s.c0) == 1 && s.log.Count(events.Uncordon, s.c0) == 1, fmt.Sprint(s.log.Events())
	})
}

func TestDrainEvictsThroughThePDBAndLeavesVMs(t *testing.T) {
	s := newSite(t, 200*time.Millisecond)
	var res DrainResult
	s.run(t, &res, s.acts.Drain, DrainInput{Node: s.c0, Timeout: time.Minute})
	if !res.Completed || res.Remaining != 0 || res.TimedOut || res.Evicted != 2 {
		t.Fatalf("drain: %+v", res)
	}
	pods, err := s.client.CoreV1().Pods(s.ns).List(bg, metav1.ListOptions{FieldSelector: "spec.nodeName=" + s.c0})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pods.Items {
		if !isVM(&p) {
			t.Errorf("pod %s still on the drained node", p.Name)
		}
	}
	if len(pods.Items) != 2 {
		t.Errorf("%d VM pods on %s, want 2", len(pods.Items), s.c0)
	}
	if n := s.log.Count(events.Evict, s.c0); n != 2 {
		t.Errorf("%d evict events, want 2", n)
	}
	// A second drain finds nothing to do.
	s.run(t, &res, s.acts.Drain, DrainInput{Node: s.c0, Timeout: time.Minute})
	if !res.Completed || res.Evicted != 0 {
		t.Fatalf("second drain: %+v", res)
	}
}

func TestDrainBlockedByAPDBTimesOutWithoutError(t *testing.T) {
	s := newSite(t, 200*time.Millisecond)
	s.sim.SetFault(s.c0, faults.PDBBlocks, true)
	eventually(t, "PDB blocked", func() (bool, string) {
		pdb, err := s.client.PolicyV1().PodDisruptionBudgets(s.ns).Get(bg, "app-"+s.c0, metav1.GetOptions{})
		return err == nil && pdb.Status.DisruptionsAllowed == 0, fmt.Sprint(err)
	})
	var beats atomic.Int32
	s.env.SetOnActivityHeartbeatListener(func(*activity.Info, converter.EncodedValues) { beats.Add(1) })
	var res DrainResult
	s.run(t, &res, s.acts.Drain, DrainInput{Node: s.c0, Timeout: 2 * time.Second})
	if !res.TimedOut || res.Completed || res.Remaining != 2 {
		t.Fatalf("drain: %+v", res)
	}
	if beats.Load() == 0 {
		t.Error("no heartbeat during a 2s drain")
	}
	if s.log.Count(events.Evict, s.c0) != 0 {
		t.Fatal("a pod was evicted despite the PDB")
	}
}

func TestSlowDrainTimesOutWithPodsStillTerminating(t *testing.T) {
	// Pods take 1s to terminate, 10s under slow-drain; the drain gets 3s.
	s := newSite(t, time.Second)
	s.sim.SetFault(s.c0, faults.SlowDrain, true)
	var res DrainResult
	s.run(t, &res, s.acts.Drain, DrainInput{Node: s.c0, Timeout: 3 * time.Second})
	if !res.TimedOut || res.Remaining == 0 {
		t.Fatalf("drain: %+v", res)
	}
	eventually(t, "evictions were issued", func() (bool, string) {
		return s.log.Count(events.Evict, s.c0) >= 1, "none"
	})
}

func TestShutdownVMsThenStartVMsRestartsOnlyTheRunningOnes(t *testing.T) {
	s := newSite(t, 0)
	running, stopped := s.ns+"/vm-"+s.c0+"-0", s.ns+"/vm-"+s.c0+"-1"
	var res ShutdownResult
	s.run(t, &res, s.acts.ShutdownVMs, ShutdownInput{Node: s.c0, Timeout: time.Minute})
	if res.TimedOut || len(res.WereRunning) != 1 || res.WereRunning[0] != running || len(res.Stopped) != 1 {
		t.Fatalf("shutdown: %+v", res)
	}
	var started StartResult
	s.run(t, &started, s.acts.StartVMs, s.c0)
	if len(started.Started) != 1 || started.Started[0] != running {
		t.Fatalf("start: %+v", started)
	}
	state := func(key string) string {
		name := key[len(s.ns)+1:]
		p, err := s.client.CoreV1().Pods(s.ns).Get(bg, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return p.Annotations[model.AnnotationVMState]
	}
	if state(running) != model.VMRunning || state(stopped) != model.VMStopped {
		t.Fatalf("after StartVMs: %s=%s %s=%s", running, state(running), stopped, state(stopped))
	}
	eventually(t, "restarted VM Ready again", func() (bool, string) {
		p, _ := s.client.CoreV1().Pods(s.ns).Get(bg, "vm-"+s.c0+"-0", metav1.GetOptions{})
		return p != nil && podutils.IsPodReady(p), "not Ready"
	})
}

func TestPowerOffIsUnknownAndBootOnNewVersionIsReady(t *testing.T) {
	s := newSite(t, 0)
	s.sim.SetMachineState(s.c0, kubesim.MachineState{Powered: false})
	eventually(t, "Ready Unknown", func() (bool, string) {
		st, err := s.acts.ReadNode(bg, s.c0, labelSource)
		return err == nil && st.Ready == "Unknown", fmt.Sprintf("%v %v", st, err)
	})
	s.sim.SetMachineState(s.c0, kubesim.MachineState{Powered: true, OSRunning: true, RuntimeVersion: "4.2.0"})
	var st NodeStatus
	s.run(t, &st, s.acts.WaitNodeReady, WaitReadyInput{Node: s.c0, Version: "4.2.0", Timeout: time.Minute})
	if !st.IsReady() || st.RuntimeVersion != "4.2.0" {
		t.Fatalf("%+v", st)
	}
	eventually(t, "node-unknown and node-ready events", func() (bool, string) {
		return s.log.Count(events.NodeUnknown, s.c0) == 1 && s.log.Count(events.NodeReady, s.c0) == 1, fmt.Sprint(s.log.Events())
	})
	if n := s.log.Count(events.NodeLabel, s.c0); n != 0 {
		t.Fatalf("the lab's stock kubelet relabelled the node: %d node-label events", n)
	}
}

func TestDeletedNodeReRegistersOnBoot(t *testing.T) {
	s := newSite(t, 0)
	s.run(t, nil, s.acts.DeleteNode, s.c0)
	s.run(t, nil, s.acts.DeleteNode, s.c0) // idempotent
	st := s.readNode(t, s.c0)
	if st.Exists {
		t.Fatalf("node still exists: %+v", st)
	}
	// The reimage that follows a deletion takes minutes; here, wait until
	// the simulator has seen the deletion before power-cycling.
	eventually(t, "node-deleted event", func() (bool, string) {
		return s.log.Count(events.NodeDeleted, s.c0) == 1, fmt.Sprint(s.log.Count(events.NodeDeleted, s.c0))
	})
	s.sim.SetMachineState(s.c0, kubesim.MachineState{Powered: false})
	s.sim.SetMachineState(s.c0, kubesim.MachineState{Powered: true, OSRunning: true})
	s.run(t, &st, s.acts.WaitNodeReady, WaitReadyInput{Node: s.c0, Timeout: time.Minute})
	if !st.IsReady() || st.Labels[model.LabelRack] == "" {
		t.Fatalf("re-registered: %+v", st)
	}
}

func TestReadOnlyRootFSIsVisibleInReadNode(t *testing.T) {
	s := newSite(t, 0)
	s.sim.SetFault(s.c1, faults.ReadOnlyRootFS, true)
	eventually(t, "ReadOnlyRootFS", func() (bool, string) {
		st, err := s.acts.ReadNode(bg, s.c1, labelSource)
		return err == nil && st.ReadOnlyRootFS && !st.ReadOnlyRootFSSince.IsZero(), fmt.Sprintf("%v %v", st, err)
	})
}
