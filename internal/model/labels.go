package model

// Node labels, pod labels and annotations: the contract between the ledger,
// the Kubernetes activities and the lab's simulated cluster (docs/design.md#contracts-users-rely-on,
// node labels). Each is spelled here only.
const (
	LabelRole            = "rackroll.io/role"
	LabelRack            = "rackroll.io/rack"
	LabelManagementGroup = "rackroll.io/management-group"
	LabelRuntimeVersion  = "rackroll.io/runtime-version"

	// LabelWorkload is "app" on ReplicaSet pods and WorkloadVM on tenant
	// VM pods.
	LabelWorkload = "rackroll.io/workload"
	WorkloadVM    = "vm"
	// AnnotationVMState is VMRunning or VMStopped on a tenant VM pod.
	AnnotationVMState = "rackroll.io/vm-state"
	VMRunning         = "Running"
	VMStopped         = "Stopped"
	// AnnotationVMRestart marks a VM that was stopped while it was running
	// for a disruption, so it is restarted afterwards and nothing else is.
	AnnotationVMRestart = "rackroll.io/vm-restart"

	// ConditionReadOnlyRootFilesystem is the node condition (as Node Problem
	// Detector sets it) that reports a read-only root filesystem; the health
	// monitor remediates a node that keeps it True for
	// readOnlyRootFilesystemFor.
	ConditionReadOnlyRootFilesystem = "ReadOnlyRootFilesystem"
)

// ManagedNodeLabels are the labels the ledger owns on b's node: its role
// and management group ("" for none). The ledger writes them whenever they
// change, and again when the node shows others — a Node deleted and
// registered again carries only its kubelet's --node-labels (docs/remediation.md#node-labels-after-a-node-is-registered-again).
func ManagedNodeLabels(b BMM) map[string]string {
	role := ""
	if len(b.Roles) > 0 {
		role = string(b.Roles[0])
	}
	return map[string]string{LabelRole: role, LabelManagementGroup: b.ManagementGroup}
}

// NodeLabelDrift is the part of want a node showing have does not: each
// key whose value differs, an absent label counting as "" (a node without
// a management group is as wanted for a BMM without one).
func NodeLabelDrift(want, have map[string]string) map[string]string {
	var out map[string]string
	for k, v := range want {
		if have[k] != v {
			if out == nil {
				out = map[string]string{}
			}
			out[k] = v
		}
	}
	return out
}

// ManagedOf is what a node's labels say of those the ledger owns, each
// key present (an absent label as ""): what a workflow reports of a node
// it observed, never empty.
func ManagedOf(labels map[string]string) map[string]string {
	return map[string]string{LabelRole: labels[LabelRole], LabelManagementGroup: labels[LabelManagementGroup]}
}
