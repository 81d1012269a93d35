package kubesim

import (
	"context"
	"fmt"
	"time"

	"k8s.io/kubectl/pkg/util/podutils"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// WaitSettled blocks until the site shows what the simulator wants: every
// machine's node has the Ready status its state calls for (or is absent
// while deleted), pods on Ready nodes are Ready (stopped VMs aside) and
// every PDB's status is observed. Tests and `lab up` use it instead of
// sleeping.
func (s *Sim) WaitSettled(ctx context.Context) error {
	if err := s.WaitSynced(ctx); err != nil {
		return err
	}
	t := time.NewTicker(20 * time.Millisecond)
	defer t.Stop()
	var why string
	for {
		if why = s.unsettled(); why == "" {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("kubesim not settled: %s: %w", why, ctx.Err())
		case <-t.C:
		}
	}
}

// unsettled returns the first thing still out of line ("" when none).
func (s *Sim) unsettled() string {
	for _, name := range s.Nodes() {
		m, _ := s.snapshotByNode(name)
		n, err := s.nodes.Get(name)
		if err != nil {
			if m.deleted || !kubeletUp(m.state, m.faults) {
				continue
			}
			return "node " + name + " not registered"
		}
		if want := desiredView(m.state, m.faults).ready; readyStatus(n) != want {
			return fmt.Sprintf("node %s Ready=%s, want %s", name, readyStatus(n), want)
		}
		if readyStatus(n) != corev1.ConditionTrue {
			continue
		}
		for _, p := range s.podsOnNode(name) {
			if p.DeletionTimestamp != nil {
				continue
			}
			if want, changed := desiredPodStatus(p, true, s.now()); changed {
				return fmt.Sprintf("pod %s/%s on %s is %s, ready=%v", p.Namespace, p.Name, name, p.Status.Phase, podutils.IsPodReady(&corev1.Pod{Status: want}))
			}
		}
	}
	pdbs, err := s.pdbs.PodDisruptionBudgets(s.opts.Namespace).List(labels.Everything())
	if err != nil {
		return err.Error()
	}
	for _, p := range pdbs {
		want, _, err := s.desiredPDBStatus(p)
		if err != nil {
			return err.Error()
		}
		if !pdbStatusEqual(p.Status, want) {
			return fmt.Sprintf("pdb %s/%s status not current (allowed %d, want %d)", p.Namespace, p.Name, p.Status.DisruptionsAllowed, want.DisruptionsAllowed)
		}
	}
	return ""
}
