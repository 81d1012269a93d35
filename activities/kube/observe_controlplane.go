package kube

import (
	"context"
	"fmt"
	"time"

	"github.com/rackroll/rackroll/internal/model"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ControlPlaneNodes is the control plane's nodes as seen at SeenAt, for
// the live gate (internal/cpgate).
type ControlPlaneNodes struct {
	SeenAt time.Time    `json:"seenAt"`
	Nodes  []NodeStatus `json:"nodes"` // in the order asked
}

// ObserveControlPlane reads each named node fresh: a plain Get is served
// from etcd with quorum, never from the API server's watch cache (unlike
// ObserveNodes, which tolerates staleness for the monitor's site-wide
// list). The control plane is a handful of nodes, so one Get each is
// cheap. A missing node is Exists=false; SeenAt is the start of the round,
// so the oldest read decides freshness.
func (a *Activities) ObserveControlPlane(ctx context.Context, nodes []string) (ControlPlaneNodes, error) {
	for i, n := range nodes {
		if n == "" {
			return ControlPlaneNodes{}, invalidInput("node name %d of %d is empty", i+1, len(nodes))
		}
	}
	out := ControlPlaneNodes{Nodes: make([]NodeStatus, 0, len(nodes))}
	if len(nodes) == 0 {
		out.SeenAt = time.Now().UTC()
		return out, nil
	}
	cs, err := a.client(ctx)
	if err != nil {
		return ControlPlaneNodes{}, err
	}
	start := time.Now().UTC()
	for _, name := range nodes {
		n, err := cs.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			out.Nodes = append(out.Nodes, NodeStatus{Node: name})
		case err != nil:
			return ControlPlaneNodes{}, fmt.Errorf("read control-plane node %s: %w", name, err)
		default:
			out.Nodes = append(out.Nodes, nodeStatusFrom(n, model.NodeVersionSource{})) // the gate reads health, not versions
		}
	}
	out.SeenAt = start
	return out, nil
}
