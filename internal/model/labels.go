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
