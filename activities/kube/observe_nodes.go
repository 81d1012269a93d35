package kube

import (
	"context"
	"fmt"
	"maps"

	"github.com/rackroll/rackroll/internal/model"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ObserveNodes reports the status of every named node with one List call:
// the health monitor looks at every BMM of a cluster each round, and one
// request per node would load the API server in proportion to the site.
// The result is in the order of nodes; a node that does not exist is
// Exists=false. Labels are included (the monitor and the CLI show roles);
// the version is read through from.
func (a *Activities) ObserveNodes(ctx context.Context, nodes []string, from model.NodeVersionSource) ([]NodeStatus, error) {
	if err := checkSource(from); err != nil {
		return nil, err
	}
	for i, n := range nodes {
		if n == "" {
			return nil, invalidInput("node name %d of %d is empty", i+1, len(nodes))
		}
	}
	if len(nodes) == 0 {
		return nil, nil
	}
	cs, err := a.client(ctx)
	if err != nil {
		return nil, err
	}
	// ResourceVersion "0" lets the API server answer from its watch cache:
	// the monitor tolerates a slightly stale view and the list stays cheap.
	list, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{ResourceVersion: "0"})
	if err != nil {
		return nil, fmt.Errorf("list nodes: %w", err)
	}
	byName := make(map[string]NodeStatus, len(list.Items))
	for i := range list.Items {
		n := &list.Items[i]
		st := nodeStatusFrom(n, from)
		st.Labels = maps.Clone(n.Labels)
		byName[n.Name] = st
	}
	out := make([]NodeStatus, len(nodes))
	for i, name := range nodes {
		st, ok := byName[name]
		if !ok {
			st = NodeStatus{Node: name}
		}
		out[i] = st
	}
	return out, nil
}
