package kube

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/lab/faults"
	"go.temporal.io/sdk/temporal"
)

// The gate's observation reads fresh: a fault the simulator has just made
// visible shows in the next observation, with SeenAt no older than the call.
func TestObserveControlPlaneSeesNodeUnknownAndReadOnlyRootFS(t *testing.T) {
	s := newSite(t, 0)
	var got ControlPlaneNodes
	before := time.Now().UTC().Add(-time.Second)
	s.run(t, &got, s.acts.ObserveControlPlane, []string{s.c0, s.c1, "nowhere"})
	if got.SeenAt.Before(before) || len(got.Nodes) != 3 {
		t.Fatalf("observation %+v: want 3 nodes seen after %s", got, before)
	}
	if !got.Nodes[0].IsReady() || !got.Nodes[1].IsReady() || got.Nodes[2].Exists || got.Nodes[2].Node != "nowhere" {
		t.Fatalf("healthy site: %+v", got.Nodes)
	}
	s.sim.SetFault(s.c0, faults.NodeUnknown, true)
	s.sim.SetFault(s.c1, faults.ReadOnlyRootFS, true)
	eventually(t, "c0 Unknown and c1 read-only in a fresh observation", func() (bool, string) {
		o, err := s.acts.ObserveControlPlane(bg, []string{s.c0, s.c1})
		if err != nil || len(o.Nodes) != 2 {
			return false, fmt.Sprint(o, err)
		}
		c0, c1 := o.Nodes[0], o.Nodes[1]
		return c0.Ready == "Unknown" && !c0.ReadyTransition.IsZero() && c1.ReadOnlyRootFS && !c1.ReadOnlyRootFSSince.IsZero(), fmt.Sprint(o)
	})
}

func TestObserveControlPlaneRejectsAnEmptyName(t *testing.T) {
	_, err := (&Activities{}).ObserveControlPlane(bg, []string{"a", ""})
	var ae *temporal.ApplicationError
	if !errors.As(err, &ae) || ae.Type() != ErrInvalidInput || !strings.Contains(err.Error(), "node name 2 of 2 is empty") {
		t.Fatalf("got %v, want invalid input naming the empty name", err)
	}
}
