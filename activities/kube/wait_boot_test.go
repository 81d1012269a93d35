package kube

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/model"
	"go.temporal.io/sdk/temporal"
	corev1 "k8s.io/api/core/v1"
)

// bootedNode is a Ready node on boot bootID whose osImage names version.
func bootedNode(bootID, labelVersion, osImage string) *corev1.Node {
	n := fakeNode("n1", corev1.ConditionTrue, labelVersion)
	n.Status.NodeInfo.BootID, n.Status.NodeInfo.OSImage = bootID, osImage
	return n
}

var imageSource = model.NodeVersionSource{OSImagePattern: `^rackroll (\S+) `}

func TestReadNodeShowsBootAndVersionFromTheSiteSource(t *testing.T) {
	a, _ := fastActs(bootedNode("boot-1", "4.1.2", "rackroll 4.2.0 (lab)"))
	for _, tc := range []struct {
		from model.NodeVersionSource
		want string
	}{{labelSource, "4.1.2"}, {imageSource, "4.2.0"}, {model.NodeVersionSource{Label: "example.com/none"}, ""}} {
		st, err := a.ReadNode(bg, "n1", tc.from)
		if err != nil || st.BootID != "boot-1" || st.OSImage != "rackroll 4.2.0 (lab)" || st.RuntimeVersion != tc.want {
			t.Errorf("from %s: %+v, %v; want version %q on boot-1", tc.from, st, err, tc.want)
		}
	}
	_, err := a.ReadNode(bg, "n1", model.NodeVersionSource{OSImagePattern: "no group"})
	var ae *temporal.ApplicationError
	if !errors.As(err, &ae) || ae.Type() != ErrInvalidInput || !strings.Contains(err.Error(), "capture groups") {
		t.Fatalf("a pattern without a group: %v", err)
	}
}

func TestBackForNeedsANewBootAtTheVersion(t *testing.T) {
	in := WaitReadyInput{Node: "n1", Version: "4.2.0", PreviousBootID: "boot-1"}
	for _, tc := range []struct {
		name string
		st   NodeStatus
		want bool
	}{
		{"new boot at target", NodeStatus{Exists: true, Ready: "True", RuntimeVersion: "4.2.0", BootID: "boot-2"}, true},
		{"old boot at target (same-version reimage)", NodeStatus{Exists: true, Ready: "True", RuntimeVersion: "4.2.0", BootID: "boot-1"}, false},
		{"new boot, old version", NodeStatus{Exists: true, Ready: "True", RuntimeVersion: "4.1.2", BootID: "boot-2"}, false},
		{"new boot, not Ready", NodeStatus{Exists: true, Ready: "False", RuntimeVersion: "4.2.0", BootID: "boot-2"}, false},
		{"no bootID shown", NodeStatus{Exists: true, Ready: "True", RuntimeVersion: "4.2.0"}, false},
	} {
		if got := backFor(tc.st, in); got != tc.want {
			t.Errorf("%s: backFor = %v, want %v", tc.name, got, tc.want)
		}
	}
	any := NodeStatus{Exists: true, Ready: "True", RuntimeVersion: "4.2.0", BootID: "boot-1"}
	if !backFor(any, WaitReadyInput{Version: "4.2.0"}) {
		t.Error("without a previous boot any boot counts")
	}
}

func TestWaitNodeReadyDoesNotPassOnTheOldBoot(t *testing.T) {
	a, _ := fastActs(bootedNode("boot-1", "4.1.2", "rackroll 4.1.2 (lab)"))
	_, err := a.WaitNodeReady(bg, WaitReadyInput{Node: "n1", Version: "4.1.2", PreviousBootID: "boot-1", Timeout: 50 * time.Millisecond})
	var ae *temporal.ApplicationError
	if !errors.As(err, &ae) || ae.Type() != ErrNodeNotReady || !strings.Contains(err.Error(), `still the boot from before the reset, bootID "boot-1"`) {
		t.Fatalf("same version, same boot: %v", err)
	}
	st, err := a.WaitNodeReady(bg, WaitReadyInput{Node: "n1", Version: "4.1.2", PreviousBootID: "boot-0", Timeout: time.Second})
	if err != nil || st.BootID != "boot-1" {
		t.Fatalf("a boot other than the previous one: %+v, %v", st, err)
	}
}

// A stock kubelet's node after a reimage: the label its first
// registration set is stale, the osImage shows the new install. The
// default and a pattern read the osImage; the declared label stays stale.
func TestWaitNodeReadyReadsTheVersionFromOSImage(t *testing.T) {
	a, _ := fastActs(bootedNode("boot-2", "4.1.2", "rackroll 4.2.0 (lab)"))
	for _, from := range []model.NodeVersionSource{{}, imageSource} {
		st, err := a.WaitNodeReady(bg, WaitReadyInput{Node: "n1", Version: "4.2.0", VersionFrom: from, PreviousBootID: "boot-1", Timeout: time.Second})
		if err != nil || st.RuntimeVersion != "4.2.0" {
			t.Fatalf("from %s: %+v, %v", from, st, err)
		}
	}
	_, err := a.WaitNodeReady(bg, WaitReadyInput{Node: "n1", Version: "4.2.0", VersionFrom: labelSource, Timeout: 50 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "want version 4.2.0 from label "+model.LabelRuntimeVersion) {
		t.Fatalf("the label says 4.1.2: %v", err)
	}
}
