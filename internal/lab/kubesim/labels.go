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

// nodeLabels are the labels a machine's kubelet registers its node with,
// and the only ones: the well-known labels every kubelet sets
// (kubernetes.io/hostname, os, arch; Kubernetes docs, "Well-Known Labels,
// Annotations and Taints") and its --node-labels, which are the machine's
// as it was set up — its first role, rack and management group — and the
// runtime-version of the image that booted. Labels set on the Node since
// (roles rackroll moved among them) are not the kubelet's to restore
// (Kubernetes docs, "Self-registration of Nodes"; kubernetes/kubernetes#59314).
func nodeLabels(m Machine, version string) map[string]string {
	l := map[string]string{
		LabelHostname:        m.NodeName,
		"kubernetes.io/os":   "linux",
		"kubernetes.io/arch": "amd64",
		model.LabelRole:      m.Role,
		model.LabelRack:      m.Rack,
	}
	if m.ManagementGroup != "" {
		l[model.LabelManagementGroup] = m.ManagementGroup
	}
	if version != "" {
		l[model.LabelRuntimeVersion] = version
	}
	return l
}
