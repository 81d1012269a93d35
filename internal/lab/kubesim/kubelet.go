package kubesim

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/rackroll/rackroll/internal/lab/faults"
	"github.com/rackroll/rackroll/internal/model"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/rackroll/rackroll/internal/lab/events"
)

func (s *Sim) now() time.Time { return time.Now() }

// reconcileNode is one kubelet's sync: register the node if it is gone
// and may come back, post status and heartbeats (osImage and bootID of the
// OS that booted), and bring its pods' status in line with the node; the
// site's relabelling agent, when it has one, keeps the runtime-version
// label current.
func (s *Sim) reconcileNode(ctx context.Context, name string) error {
	m, ok := s.snapshotByNode(name)
	if !ok {
		return nil // not one of ours
	}
	node, err := s.nodes.Get(name)
	if apierrors.IsNotFound(err) {
		return s.nodeGone(ctx, m)
	}
	if err != nil {
		return err
	}
	now := s.now()
	v := desiredView(m.state, m.faults)

	if s.opts.RelabelAgent && v.posting && m.boot.Version != "" && node.Labels[model.LabelRuntimeVersion] != m.boot.Version {
		// The machine came back on a new runtime: the site's agent relabels
		// the node with the version that booted (not the one being
		// installed). A stock kubelet never does: it applies --node-labels
		// at registration only (Kubernetes docs, "Self-registration of
		// Nodes"; kubernetes/kubernetes#59314, #109569, #122035). The
		// informer sees the change and emits node-label.
		patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"labels": map[string]string{model.LabelRuntimeVersion: m.boot.Version}}})
		if _, err := s.client.CoreV1().Nodes().Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			return fmt.Errorf("label node %s: %w", name, err)
		}
	}

	if wrote, err := s.syncMaintenanceTaint(ctx, node, m.faults[faults.MaintenanceTaint]); wrote || err != nil {
		return err
	}
	status := node.Status.DeepCopy()
	beat := v.posting && heartbeatDue(name, lastHeartbeat(node), now, s.opts.Heartbeat)
	// A posting kubelet reports the boot it runs on.
	booted := v.posting && applyBoot(&status.NodeInfo, m.boot)
	if booted && v.ready == corev1.ConditionTrue && readyStatus(node) == corev1.ConditionTrue {
		// A kubelet on a new boot reports NotReady until its runtime is up,
		// as a real one does: a reboot quicker than this simulator's sync
		// still shows on the node. Ready follows at the next sync (the
		// status update queues one).
		v.ready, v.reason, v.message = corev1.ConditionFalse, reasonNotReady, msgBooting
	}
	if applyView(status, v, now, beat) || booted {
		n := node.DeepCopy()
		n.Status = *status
		if _, err := s.client.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{}); err != nil {
			return err // a conflict with a cordon or label patch: retried
		}
		if before, after := readyStatus(node), readyStatus(n); before != after {
			s.emitReady(name, after, v)
		}
	}
	return s.syncPods(ctx, name, v.ready == corev1.ConditionTrue)
}

// nodeGone handles a machine whose node does not exist: a deleted node
// stays deleted until the machine's OS boots again, then its kubelet
// registers a new Node with its own labels only (newNode). Meanwhile the
// pod garbage collector removes its ReplicaSet pods so they are replaced
// elsewhere.
func (s *Sim) nodeGone(ctx context.Context, m snapshot) error {
	if err := s.collectOrphans(ctx, m.NodeName); err != nil {
		return err
	}
	if m.deleted || !kubeletUp(m.state, m.faults) {
		return nil
	}
	n := newNode(m, s.now())
	_, err := s.client.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil // registered by an earlier pass the cache has not shown yet
	}
	if err != nil {
		return fmt.Errorf("re-register node %s: %w", m.NodeName, err)
	}
	if changed, removed := labelDiff(m.labels, n.Labels); len(changed)+len(removed) > 0 {
		// The log shows what the registration changed against the labels
		// the deleted node last had: a moved role back at the kubelet's.
		d := map[string]any{"labels": changed, events.Registered: true}
		if len(removed) > 0 {
			d["removed"] = removed
		}
		s.emitFor(events.NodeLabel, m.NodeName, d)
	}
	if m.cordoned {
		// A kubelet registers its node schedulable: log that the cordon
		// the deleted node had is gone.
		s.emitFor(events.Uncordon, m.NodeName, map[string]any{"reason": "node re-registered"})
	}
	s.emitReady(m.NodeName, readyStatus(n), desiredView(m.state, m.faults))
	return nil
}

// emitReady records a Ready transition.
func (s *Sim) emitReady(node string, st corev1.ConditionStatus, v nodeView) {
	kind := events.NodeUnknown
	switch st {
	case corev1.ConditionTrue:
		kind = events.NodeReady
	case corev1.ConditionFalse:
		kind = events.NodeNotReady
	}
	s.emitFor(kind, node, map[string]any{"reason": v.reason, "message": v.message})
}
