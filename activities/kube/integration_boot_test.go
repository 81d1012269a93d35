package kube

import (
	"errors"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/temporal"

	"github.com/rackroll/rackroll/internal/lab/kubesim"
	"github.com/rackroll/rackroll/internal/model"
)

// Against the lab's apiserver and kubelets: a reimage is over only on a
// new boot, and the version is read where the site says.

var labImage = model.NodeVersionSource{OSImagePattern: `^rackroll (\S+) \(lab\)$`}

func TestReimageIsSeenAsANewBootAtTheVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a kube-apiserver")
	}
	s := newSite(t, 0)
	before := s.readNode(t, s.c0)
	if before.BootID == "" || before.OSImage != kubesim.OSImage("4.1.2") {
		t.Fatalf("a Ready node shows its boot: %+v", before)
	}
	// The machine resets into the installer: the old boot is gone but the
	// new one has not come; a wait for a new boot does not pass.
	s.sim.SetMachineState(s.c0, kubesim.MachineState{Powered: true, OSRunning: false, RuntimeVersion: "4.1.2"})
	_, err := s.acts.WaitNodeReady(bg, WaitReadyInput{Node: s.c0, Version: "4.1.2", PreviousBootID: before.BootID, Timeout: 500 * time.Millisecond})
	var ae *temporal.ApplicationError
	if !errors.As(err, &ae) || ae.Type() != ErrNodeNotReady {
		t.Fatalf("installing, same version: %v", err)
	}
	// The OS boots: a new bootID, Ready, the same version.
	s.sim.SetMachineState(s.c0, kubesim.MachineState{Powered: true, OSRunning: true})
	var st NodeStatus
	s.run(t, &st, s.acts.WaitNodeReady, WaitReadyInput{Node: s.c0, Version: "4.1.2", PreviousBootID: before.BootID, Timeout: time.Minute})
	if st.BootID == before.BootID || st.BootID == "" || !st.IsReady() || st.RuntimeVersion != "4.1.2" {
		t.Fatalf("after the boot %+v, before %+v", st, before)
	}
	// The other machine did not boot: same boot id as ever.
	if other := s.readNode(t, s.c1); other.BootID == "" || other.BootID == st.BootID {
		t.Fatalf("c1 %+v", other)
	}
}

// The lab's kubelets are stock: after the reimage the osImage shows the
// new version (read by default or by a pattern) while the label its first
// registration set stays as it was.
func TestVersionFromOSImageOrLabel(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a kube-apiserver")
	}
	s := newSite(t, 0)
	before := s.readNode(t, s.c0)
	s.sim.SetMachineState(s.c0, kubesim.MachineState{Powered: false})
	s.sim.SetMachineState(s.c0, kubesim.MachineState{Powered: true, OSRunning: true, RuntimeVersion: "4.2.0"})
	for _, from := range []model.NodeVersionSource{{}, labImage} {
		var st NodeStatus
		s.run(t, &st, s.acts.WaitNodeReady, WaitReadyInput{Node: s.c0, Version: "4.2.0", VersionFrom: from, PreviousBootID: before.BootID, Timeout: time.Minute})
		if st.RuntimeVersion != "4.2.0" || st.OSImage != kubesim.OSImage("4.2.0") {
			t.Fatalf("from %s: %+v", from, st)
		}
	}
	if st := s.readNode(t, s.c0); st.RuntimeVersion != "4.1.2" {
		t.Fatalf("through the label its first registration set: %+v", st)
	}
	// A site whose label is something else reads nothing there: the wait
	// names the source it read.
	_, err := s.acts.WaitNodeReady(bg, WaitReadyInput{Node: s.c0, Version: "4.2.0", VersionFrom: model.NodeVersionSource{Label: "example.com/os-version"},
		Timeout: 300 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "want version 4.2.0 from label example.com/os-version") {
		t.Fatalf("a label the node lacks: %v", err)
	}
	var nodes []NodeStatus
	s.run(t, &nodes, s.acts.ObserveNodes, []string{s.c0, s.c1}, labImage)
	if nodes[0].RuntimeVersion != "4.2.0" || nodes[1].RuntimeVersion != "4.1.2" {
		t.Fatalf("observed through the osImage: %+v", nodes)
	}
}
