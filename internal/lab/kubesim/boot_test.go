package kubesim

import (
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/model"
	corev1 "k8s.io/api/core/v1"
)

// bootOf is the boot the simulator holds for BMM name.
func bootOf(t *testing.T, s *Sim, name string) bootInfo {
	t.Helper()
	snap, ok := s.snapshotByNode(s.NodeName(name))
	if !ok {
		t.Fatalf("no machine %s", name)
	}
	return snap.boot
}

func TestEveryBootHasANewBootIDAndOnlyTheBootedVersionShows(t *testing.T) {
	s := New(nil, []Machine{{Name: "m1", Role: "compute", Rack: "r1", RuntimeVersion: "4.1.2"}}, Options{})
	first := bootOf(t, s, "m1")
	if first.ID == "" || first.Version != "4.1.2" {
		t.Fatalf("initial boot %+v", first)
	}
	seen := map[string]bool{first.ID: true}
	// A reimage: the machine resets into the installer (powered, no OS),
	// the BMC already knows the version being installed, then the OS boots.
	s.SetMachineState("m1", MachineState{Powered: true, OSRunning: false, RuntimeVersion: "4.2.0"})
	if b := bootOf(t, s, "m1"); b != first {
		t.Fatalf("installing is not a boot: %+v, want %+v", b, first)
	}
	s.SetMachineState("m1", MachineState{Powered: true, OSRunning: true, RuntimeVersion: "4.2.0"})
	second := bootOf(t, s, "m1")
	if seen[second.ID] || second.Version != "4.2.0" {
		t.Fatalf("after the boot %+v, before %+v", second, first)
	}
	seen[second.ID] = true
	// Same state again: no boot.
	s.SetMachineState("m1", MachineState{Powered: true, OSRunning: true})
	if b := bootOf(t, s, "m1"); b != second {
		t.Fatalf("no boot, yet %+v", b)
	}
	// A reimage to the version it runs still boots anew.
	for range 3 {
		s.SetMachineState("m1", MachineState{Powered: false})
		s.SetMachineState("m1", MachineState{Powered: true, OSRunning: true})
		b := bootOf(t, s, "m1")
		if seen[b.ID] || b.Version != "4.2.0" {
			t.Fatalf("boot %+v repeats an id or lost the version", b)
		}
		seen[b.ID] = true
	}
}

func TestNodeShowsItsBoot(t *testing.T) {
	s := New(nil, []Machine{{Name: "m1", Role: "compute", Rack: "r1", RuntimeVersion: "4.1.2"}}, Options{})
	snap, _ := s.snapshotByNode("m1")
	n := newNode(snap, time.Unix(100, 0))
	if n.Status.NodeInfo.BootID != snap.boot.ID || n.Status.NodeInfo.OSImage != "rackroll 4.1.2 (lab)" || n.Labels[model.LabelRuntimeVersion] != "4.1.2" {
		t.Fatalf("registered node %+v labels %v", n.Status.NodeInfo, n.Labels)
	}
	src := model.NodeVersionSource{OSImagePattern: `^rackroll (\S+) `}
	if v, err := src.Read(nil, n.Status.NodeInfo.OSImage); err != nil || v != "4.1.2" {
		t.Fatalf("the osImage pattern reads %q, %v", v, err)
	}
	info := n.Status.NodeInfo
	if applyBoot(&info, snap.boot) {
		t.Fatal("the same boot is no change")
	}
	next := newBoot("4.2.0")
	if !applyBoot(&info, next) || info.BootID != next.ID || info.OSImage != OSImage("4.2.0") {
		t.Fatalf("a new boot must be written: %+v", info)
	}
}

// A reboot quicker than the simulator's sync still shows on the node: the
// kubelet on the new boot reports NotReady first, as a real one does, then
// Ready — so the log has the node-ready a waiter looks for.
func TestAQuickRebootStillShowsNotReadyThenReady(t *testing.T) {
	s := startSite(t, Options{}, "compute", "compute")
	bmm := s.prefix + "-compute0"
	s.SetMachineState(bmm, MachineState{Powered: false})
	s.SetMachineState(bmm, MachineState{Powered: true, OSRunning: true, RuntimeVersion: "4.2.0"})
	eventually(t, "Ready on the new version", func() (bool, string) {
		n := s.node(t, bmm)
		return readyStatus(n) == corev1.ConditionTrue && n.Status.NodeInfo.OSImage == OSImage("4.2.0"), n.Status.NodeInfo.OSImage
	})
	eventually(t, "node-ready logged", func() (bool, string) {
		return s.log.Count(events.NodeReady, bmm) == 1, fmt.Sprint(s.log.Count(events.NodeReady, bmm))
	})
	if down := s.log.Count(events.NodeNotReady, bmm) + s.log.Count(events.NodeUnknown, bmm); down == 0 {
		t.Fatal("the reboot left no trace of the node going down")
	}
}

// A stock kubelet applies --node-labels only when it registers a Node
// that does not exist (Kubernetes docs, "Self-registration of Nodes";
// kubernetes/kubernetes#59314, #109569, #122035): a reimaged node keeps
// every label it had, the runtime-version of its first install among
// them, while osImage and bootID show the OS that booted. Only a site's
// relabelling agent moves the label.
func TestAReimagedNodeKeepsItsLabelsUnlessAnAgentRelabels(t *testing.T) {
	for _, agent := range []bool{false, true} {
		t.Run(fmt.Sprintf("relabelling agent %v", agent), func(t *testing.T) {
			s := startSite(t, Options{RelabelAgent: agent}, "compute", "compute")
			bmm := s.prefix + "-compute0"
			before := s.node(t, bmm)
			s.SetMachineState(bmm, MachineState{Powered: true, OSRunning: false, RuntimeVersion: "4.2.0"}) // the installer runs
			s.SetMachineState(bmm, MachineState{Powered: true, OSRunning: true, RuntimeVersion: "4.2.0"})
			var after *corev1.Node
			eventually(t, "Ready on the new boot", func() (bool, string) {
				after = s.node(t, bmm)
				info := after.Status.NodeInfo
				return readyStatus(after) == corev1.ConditionTrue && info.BootID != before.Status.NodeInfo.BootID, fmt.Sprint(info)
			})
			if got := after.Status.NodeInfo.OSImage; got != OSImage("4.2.0") || after.Status.NodeInfo.BootID == "" {
				t.Fatalf("osImage %q bootID %q: the node must show the OS that booted", got, after.Status.NodeInfo.BootID)
			}
			want := maps.Clone(before.Labels)
			if agent {
				want[model.LabelRuntimeVersion] = "4.2.0"
				eventually(t, "the agent's label", func() (bool, string) {
					after = s.node(t, bmm)
					return after.Labels[model.LabelRuntimeVersion] == "4.2.0", fmt.Sprint(after.Labels)
				})
			} else if err := s.WaitSettled(bg); err != nil {
				t.Fatal(err)
			}
			if after = s.node(t, bmm); !maps.Equal(after.Labels, want) {
				t.Fatalf("labels after the reimage %v, want %v", after.Labels, want)
			}
			if n := s.log.Count(events.NodeLabel, bmm); (n > 0) != agent {
				t.Fatalf("%d node-label events with agent %v", n, agent)
			}
		})
	}
}
