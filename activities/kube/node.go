package kube

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"

	"github.com/rackroll/rackroll/internal/model"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// LabelNode sets labels on node (other labels are kept).
func (a *Activities) LabelNode(ctx context.Context, node string, labels map[string]string) error {
	if node == "" {
		return invalidInput("node name is empty")
	}
	if len(labels) == 0 {
		return nil
	}
	cs, err := a.client(ctx)
	if err != nil {
		return err
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"labels": labels}})
	if err != nil {
		return invalidInput("labels: %v", err)
	}
	_, err = cs.CoreV1().Nodes().Patch(ctx, node, types.MergePatchType, patch, metav1.PatchOptions{})
	if apierrors.IsNotFound(err) {
		return nodeNotFound(node, err)
	}
	if apierrors.IsInvalid(err) {
		return invalidInput("label node %s with %v: %v", node, labels, err)
	}
	if err != nil {
		return fmt.Errorf("label node %s: %w", node, err)
	}
	return nil
}

// DeleteNode deletes node. A node that is already gone is fine.
func (a *Activities) DeleteNode(ctx context.Context, node string) error {
	cs, err := a.nodeClient(ctx, node)
	if err != nil {
		return err
	}
	err = cs.CoreV1().Nodes().Delete(ctx, node, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete node %s: %w", node, err)
	}
	return nil
}

// ReadNode reports node's readiness, read-only root fs condition, cordon
// state, boot id, labels and the version it shows (read through from). A
// missing node is Exists=false, not an error.
func (a *Activities) ReadNode(ctx context.Context, node string, from model.NodeVersionSource) (NodeStatus, error) {
	if err := checkSource(from); err != nil {
		return NodeStatus{}, err
	}
	cs, err := a.nodeClient(ctx, node)
	if err != nil {
		return NodeStatus{}, err
	}
	n, err := cs.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return NodeStatus{Node: node}, nil
	}
	if err != nil {
		return NodeStatus{}, fmt.Errorf("read node %s: %w", node, err)
	}
	st := nodeStatusFrom(n, from)
	st.Labels = maps.Clone(n.Labels)
	return st, nil
}
