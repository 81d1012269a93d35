package kube

import (
	"fmt"
	"time"

	"github.com/rackroll/rackroll/internal/model"
	corev1 "k8s.io/api/core/v1"
)

// NodeStatus is what workflows need to know about a node.
type NodeStatus struct {
	Node   string
	Exists bool
	// Ready is the Ready condition's status: "True", "False", "Unknown",
	// or "" when the node has not reported one.
	Ready        string
	ReadyReason  string `json:",omitempty"`
	ReadyMessage string `json:",omitempty"`
	// ReadyTransition is when Ready last changed status; with Ready it
	// tells how long a node has been Ready, NotReady or Unknown.
	ReadyTransition time.Time
	// LastHeartbeat is the kubelet's last status post (stale when Unknown).
	LastHeartbeat  time.Time
	ReadOnlyRootFS bool
	// ReadOnlyRootFSSince is when the condition last changed (zero when absent).
	ReadOnlyRootFSSince time.Time
	Unschedulable       bool
	// RuntimeVersion is the version the node shows, read where the site
	// says (model.NodeVersionSource: a label or the osImage).
	RuntimeVersion string
	// BootID is status.nodeInfo.bootID: it changes on every boot, so a
	// reimage is over only when the node shows a new one.
	BootID  string            `json:",omitempty"`
	OSImage string            `json:",omitempty"`
	Labels  map[string]string `json:",omitempty"`
}

// IsReady reports Ready=True.
func (s NodeStatus) IsReady() bool { return s.Exists && s.Ready == string(corev1.ConditionTrue) }

// String is a one-line summary for errors and logs.
func (s NodeStatus) String() string {
	if !s.Exists {
		return fmt.Sprintf("node %s does not exist", s.Node)
	}
	r := s.Ready
	if r == "" {
		r = "not reported"
	}
	out := fmt.Sprintf("node %s Ready=%s", s.Node, r)
	if s.ReadyReason != "" {
		out += " (" + s.ReadyReason + ")"
	}
	if s.RuntimeVersion != "" {
		out += ", runtime-version " + s.RuntimeVersion
	}
	if s.BootID != "" {
		out += ", bootID " + s.BootID
	}
	if s.ReadOnlyRootFS {
		out += ", root filesystem read-only"
	}
	if s.Unschedulable {
		out += ", cordoned"
	}
	return out
}

// nodeStatusFrom extracts a NodeStatus (without labels) from n, reading
// the version through from (validated by the caller: see checkSource).
func nodeStatusFrom(n *corev1.Node, from model.NodeVersionSource) NodeStatus {
	st := NodeStatus{
		Node:          n.Name,
		Exists:        true,
		Unschedulable: n.Spec.Unschedulable,
		BootID:        n.Status.NodeInfo.BootID,
		OSImage:       n.Status.NodeInfo.OSImage,
	}
	st.RuntimeVersion, _ = from.Read(n.Labels, n.Status.NodeInfo.OSImage)
	for _, c := range n.Status.Conditions {
		switch c.Type {
		case corev1.NodeReady:
			st.Ready, st.ReadyReason, st.ReadyMessage = string(c.Status), c.Reason, c.Message
			st.ReadyTransition, st.LastHeartbeat = c.LastTransitionTime.Time, c.LastHeartbeatTime.Time
		case model.ConditionReadOnlyRootFilesystem:
			st.ReadOnlyRootFS = c.Status == corev1.ConditionTrue
			st.ReadOnlyRootFSSince = c.LastTransitionTime.Time
		}
	}
	return st
}

// checkSource rejects a version source that cannot be read, before any
// API call.
func checkSource(from model.NodeVersionSource) error {
	if err := from.Validate(); err != nil {
		return invalidInput("version source: %v", err)
	}
	return nil
}
