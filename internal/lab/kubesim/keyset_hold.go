package kubesim

import (
	"context"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/lab/faults"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
)

// What keeps a keyset pod from running on a Ready node, written into its
// status in the kubelet's words (docs/lab.md#faults):
//
//   - a NoExecute taint of the node the pod does not tolerate: the
//     kubelet's admission refuses it (Failed, reason TaintToleration,
//     "Pod was rejected: …"; kubernetes pkg/kubelet/lifecycle/predicate.go
//     checks NoExecute taints only for a pod that names its node, and
//     kubelet.go's rejectPod writes the message). NoSchedule taints are
//     the scheduler's, which a pod with nodeName never meets;
//   - faults.ImagePullFails: the container waits with reason ErrImagePull
//     and the runtime's error (containerd's "failed to pull and unpack
//     image …"), then ImagePullBackOff, "Back-off pulling image …", and
//     pulls again after the back-off (kubernetes
//     pkg/kubelet/images/image_manager.go, types.go), for as long as the
//     fault is on.

// Kubelet words the lab writes (cited above).
const (
	reasonTaintToleration = "TaintToleration"
	msgTaintRejected      = "Pod was rejected: Predicate TaintToleration failed: node(s) had taints that the pod didn't tolerate"
	reasonErrImagePull    = "ErrImagePull"
	reasonPullBackOff     = "ImagePullBackOff"
)

// pullBackOff is how long a keyset pod shows each of ErrImagePull and
// ImagePullBackOff before the next (a kubelet's back-off starts at 10 s;
// the lab's is short so that a test sees both within its bound).
const pullBackOff = time.Second

// pullFailure is the runtime's error for image, as containerd's CRI words
// it when the registry has no such image.
func pullFailure(image string) string {
	return fmt.Sprintf("rpc error: code = NotFound desc = failed to pull and unpack image %q: failed to resolve reference %q: %s: not found", image, image, image)
}

// pullState is the last waiting reason written for a node's keyset pod.
type pullState struct {
	pod    types.UID
	reason string
	at     time.Time
}

// holdKeysetPod writes why p cannot run on node, if anything keeps it;
// held says the kubelet does not run it (now).
func (s *Sim) holdKeysetPod(ctx context.Context, p *corev1.Pod) (held bool, err error) {
	node, err := s.nodes.Get(p.Spec.NodeName)
	if err != nil {
		return false, nil // the node's own sync comes first
	}
	if _, bad := corev1helpers.FindMatchingUntoleratedTaint(logr.Discard(), node.Spec.Taints, p.Spec.Tolerations, func(t *corev1.Taint) bool {
		return t.Effect == corev1.TaintEffectNoExecute
	}, false); bad {
		np := p.DeepCopy()
		np.Status = corev1.PodStatus{Phase: corev1.PodFailed, Reason: reasonTaintToleration, Message: msgTaintRejected}
		s.emitFor(events.KeysetPod, p.Spec.NodeName, map[string]any{"phase": string(corev1.PodFailed), "reason": reasonTaintToleration})
		return true, s.postKeysetStatus(ctx, np)
	}
	s.mu.Lock()
	m, ok := s.byNode[p.Spec.NodeName]
	if !ok || !m.faults[faults.ImagePullFails] {
		if ok {
			m.pull = pullState{}
		}
		s.mu.Unlock()
		return false, nil
	}
	now := s.now()
	next := reasonErrImagePull
	if m.pull.pod == p.UID {
		next = m.pull.reason
		if now.Sub(m.pull.at) >= pullBackOff {
			next = map[string]string{reasonErrImagePull: reasonPullBackOff, reasonPullBackOff: reasonErrImagePull}[m.pull.reason]
		}
	}
	changed := m.pull.pod != p.UID || m.pull.reason != next
	if changed {
		m.pull = pullState{pod: p.UID, reason: next, at: now}
	}
	s.mu.Unlock()
	if !changed {
		return true, nil
	}
	np := p.DeepCopy()
	np.Status = corev1.PodStatus{Phase: corev1.PodPending}
	for _, c := range p.Spec.Containers {
		msg := pullFailure(c.Image)
		if next == reasonPullBackOff {
			msg = fmt.Sprintf("Back-off pulling image %q", c.Image)
		}
		np.Status.ContainerStatuses = append(np.Status.ContainerStatuses, corev1.ContainerStatus{Name: c.Name, Image: c.Image,
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: next, Message: msg}}})
	}
	s.emitFor(events.KeysetPod, p.Spec.NodeName, map[string]any{"phase": string(corev1.PodPending), "reason": next})
	return true, s.postKeysetStatus(ctx, np)
}

func (s *Sim) postKeysetStatus(ctx context.Context, p *corev1.Pod) error {
	if _, err := s.client.CoreV1().Pods(p.Namespace).UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	return nil
}
