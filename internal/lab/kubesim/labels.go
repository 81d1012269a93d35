package kubesim

import "github.com/rackroll/rackroll/internal/model"

// The lab's own labels; the platform's label keys are model's.
const (
	LabelHostname   = "kubernetes.io/hostname"
	TenantNamespace = "tenant"
	// WorkloadApp is the model.LabelWorkload of ReplicaSet pods.
	WorkloadApp = "app"
	// labelApp ties a ReplicaSet's pods to it and to its PDB.
	labelApp = "app"
)

// nodeLabels are the labels a machine registers its node with.
func nodeLabels(m Machine, version string) map[string]string {
	l := map[string]string{
		LabelHostname:   m.NodeName,
		model.LabelRole: m.Role,
		model.LabelRack: m.Rack,
	}
	if m.ManagementGroup != "" {
		l[model.LabelManagementGroup] = m.ManagementGroup
	}
	if version != "" {
		l[model.LabelRuntimeVersion] = version
	}
	return l
}
