package kubesim

// Node labels (DESIGN.md, "Kubernetes labels").
const (
	LabelRole            = "rackroll.io/role"
	LabelRack            = "rackroll.io/rack"
	LabelManagementGroup = "rackroll.io/management-group"
	LabelRuntimeVersion  = "rackroll.io/runtime-version"
	LabelHostname        = "kubernetes.io/hostname"
)

// Tenant workload labels and annotations; activities/kube reads the same
// strings.
const (
	TenantNamespace = "tenant"
	// LabelWorkload is "app" on ReplicaSet pods and "vm" on tenant VM pods.
	LabelWorkload = "rackroll.io/workload"
	WorkloadApp   = "app"
	WorkloadVM    = "vm"
	// AnnotationVMState is Running or Stopped on a VM pod.
	AnnotationVMState = "rackroll.io/vm-state"
	VMRunning         = "Running"
	VMStopped         = "Stopped"
	// labelApp ties a ReplicaSet's pods to it and to its PDB.
	labelApp = "app"
)

// ConditionReadOnlyRootFilesystem is the node condition the faults.ReadOnlyRootFS
// fault sets to True, as Node Problem Detector's filesystem monitor would
// (reason FilesystemIsReadOnly). The health monitor remediates a node that
// keeps it True for readOnlyRootFilesystemFor.
const ConditionReadOnlyRootFilesystem = "ReadOnlyRootFilesystem"

// nodeLabels are the labels a machine registers its node with.
func nodeLabels(m Machine, version string) map[string]string {
	l := map[string]string{
		LabelHostname: m.NodeName,
		LabelRole:     m.Role,
		LabelRack:     m.Rack,
	}
	if m.ManagementGroup != "" {
		l[LabelManagementGroup] = m.ManagementGroup
	}
	if version != "" {
		l[LabelRuntimeVersion] = version
	}
	return l
}
