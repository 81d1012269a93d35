package kube

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/kubectl/pkg/drain"
)

// Cordon marks node unschedulable. Already cordoned is fine.
func (a *Activities) Cordon(ctx context.Context, node string) error {
	return a.setUnschedulable(ctx, node, true)
}

// Uncordon makes node schedulable again. Already schedulable is fine.
func (a *Activities) Uncordon(ctx context.Context, node string) error {
	return a.setUnschedulable(ctx, node, false)
}

// setUnschedulable uses kubectl's cordon helper, which patches only when
// the node's state differs.
func (a *Activities) setUnschedulable(ctx context.Context, node string, on bool) error {
	cs, err := a.nodeClient(ctx, node)
	if err != nil {
		return err
	}
	n, err := cs.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nodeNotFound(node, err)
	}
	if err != nil {
		return fmt.Errorf("get node %s: %w", node, err)
	}
	h := &drain.Helper{Ctx: ctx, Client: cs}
	if err := drain.RunCordonOrUncordon(h, n, on); err != nil {
		if apierrors.IsNotFound(err) {
			return nodeNotFound(node, err)
		}
		verb := "uncordon"
		if on {
			verb = "cordon"
		}
		return fmt.Errorf("%s node %s: %w", verb, node, err)
	}
	return nil
}
