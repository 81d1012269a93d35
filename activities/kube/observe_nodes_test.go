package kube

import (
	"testing"

	"github.com/rackroll/rackroll/internal/model"
	corev1 "k8s.io/api/core/v1"
	k8stesting "k8s.io/client-go/testing"
)

// One list call answers for every node, in the order asked, missing nodes
// included; the read-only root filesystem condition is reported.
func TestObserveNodesListsOnce(t *testing.T) {
	rofs := fakeNode("n2", corev1.ConditionTrue, "4.1.2")
	rofs.Status.Conditions = append(rofs.Status.Conditions, corev1.NodeCondition{Type: model.ConditionReadOnlyRootFilesystem, Status: corev1.ConditionTrue})
	a, cs := fastActs(fakeNode("n1", corev1.ConditionUnknown, "4.1.2"), rofs)
	cs.ClearActions()
	got, err := a.ObserveNodes(bg, []string{"n2", "gone", "n1"}, labelSource)
	if err != nil {
		t.Fatal(err)
	}
	var lists, gets int
	for _, act := range cs.Actions() {
		switch act.(type) {
		case k8stesting.ListAction:
			lists++
		case k8stesting.GetAction:
			gets++
		}
	}
	if lists != 1 || gets != 0 {
		t.Fatalf("want one list and no gets, got %d lists and %d gets", lists, gets)
	}
	if len(got) != 3 || got[0].Node != "n2" || got[1].Node != "gone" || got[2].Node != "n1" {
		t.Fatalf("order: %+v", got)
	}
	if !got[0].Exists || !got[0].ReadOnlyRootFS || got[0].Ready != "True" || got[0].RuntimeVersion != "4.1.2" {
		t.Fatalf("n2: %+v", got[0])
	}
	if got[1].Exists {
		t.Fatalf("gone: %+v", got[1])
	}
	if !got[2].Exists || got[2].Ready != "Unknown" || got[2].ReadOnlyRootFS {
		t.Fatalf("n1: %+v", got[2])
	}
}

func TestObserveNodesRejectsEmptyNames(t *testing.T) {
	a, cs := fastActs()
	cs.ClearActions()
	if _, err := a.ObserveNodes(bg, []string{"n1", ""}, labelSource); err == nil {
		t.Fatal("want an error for an empty node name")
	}
	if len(cs.Actions()) != 0 {
		t.Fatal("no API call before the input is checked")
	}
}
