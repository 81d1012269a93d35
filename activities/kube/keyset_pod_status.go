package kube

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// What a keyset pod that has not ended says about why, read from its
// status as the kubelet and the scheduler write it
// (docs/keysets-nodes.md#what-the-outcome-says). The kubelet's reasons are
// its image manager's and runtime manager's (kubernetes
// pkg/kubelet/images/types.go: ErrImagePull, ImagePullBackOff,
// InvalidImageName, ErrImageNeverPull; pkg/kubelet/kuberuntime:
// CreateContainerConfigError, CreateContainerError), its admission's
// (a pod Failed with the predicate's name as reason, "Pod was rejected:
// …") and the scheduler's (PodScheduled False, reason Unschedulable).

// podHold is why a keyset pod has not run, as far as its status says.
type podHold struct {
	// Reason is the kubelet's or the scheduler's word; "" when the status
	// names none (the pod is being started, or its node is down).
	Reason  string
	Message string
	Image   string
	// Final: waiting cannot change it (a name the kubelet cannot parse, an
	// image it may never pull): the node's outcome is failed at once.
	// Otherwise the kubelet tries again, and the activity waits for it
	// within its bound.
	Final bool
	// PullError is the last ErrImagePull message seen: ImagePullBackOff's
	// own message only says it backs off, the pull's says why.
	PullError string
}

// finalWaiting are the container reasons no retry of the kubelet changes.
var finalWaiting = map[string]bool{
	"InvalidImageName":          true, // the image reference does not parse
	"ErrImageNeverPull":         true, // imagePullPolicy Never and not on the node
	"SignatureValidationFailed": true, // the runtime's policy refuses the image
}

// holdOf reads p's status; prev is what the last poll read (its PullError
// is kept across ImagePullBackOff).
func holdOf(p *corev1.Pod, prev podHold) podHold {
	h := podHold{PullError: prev.PullError}
	for _, c := range p.Status.ContainerStatuses {
		if c.Name != keysetContainer || c.State.Waiting == nil {
			continue
		}
		w := c.State.Waiting
		if w.Reason == "" || w.Reason == "ContainerCreating" || w.Reason == "PodInitializing" {
			return h
		}
		h.Reason, h.Message, h.Image, h.Final = w.Reason, w.Message, c.Image, finalWaiting[w.Reason]
		if w.Reason == "ErrImagePull" {
			h.PullError = w.Message
		}
		return h
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason != "" {
			h.Reason, h.Message = c.Reason, c.Message
			return h
		}
	}
	return h
}

// String says the hold in an outcome: the reason, the image for the
// image's reasons, the kubelet's message (cut) and the pull's error.
func (h podHold) String() string {
	if h.Reason == "" {
		return ""
	}
	s := h.Reason
	if h.Image != "" && (strings.Contains(h.Reason, "Image") || h.Reason == "SignatureValidationFailed" || h.Reason == "RegistryUnavailable") {
		s += " for image " + h.Image
	}
	if h.Message != "" {
		s += ": " + cut(h.Message)
	}
	if h.PullError != "" && h.PullError != h.Message {
		s += fmt.Sprintf(" (last pull: %s)", cut(h.PullError))
	}
	return s
}

// rejected says whether the kubelet refused p at admission: Failed before
// any container was made, the reason the predicate that refused it
// (TaintToleration for a NoExecute taint it does not tolerate).
func rejected(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodFailed && p.Status.Reason != "" && terminated(p) == nil
}
