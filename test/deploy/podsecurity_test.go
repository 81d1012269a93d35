package deploy_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rackroll/rackroll/internal/keyset"
	"github.com/stretchr/testify/require"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"
)

// Least privilege around the keyset pods (docs/install.md#what-is-in-it): a
// pod in keyset.NodeNamespace is privileged with the host's root, so
// creating one is root on a node. Only that namespace is privileged for Pod
// Security Admission — every other namespace deploy/ makes enforces
// restricted — and no cluster-wide rule lets the worker create pods
// anywhere else (the Role of keysets.yaml is the one grant of create).
func TestPrivilegedOnlyWhereKeysetPodsRun(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join(deployDir, "*.yaml"))
	require.NoError(t, err)
	namespaces := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, doc := range strings.Split(string(b), "\n---\n") {
			var obj struct {
				Kind     string
				Metadata struct {
					Name   string
					Labels map[string]string
				}
				Rules []rbacv1.PolicyRule
			}
			require.NoError(t, yaml.Unmarshal([]byte(doc), &obj), f)
			switch obj.Kind {
			case "Namespace":
				namespaces++
				want := "restricted"
				if obj.Metadata.Name == keyset.NodeNamespace {
					want = "privileged"
				}
				for _, mode := range []string{"enforce", "audit", "warn"} {
					require.Equal(t, want, obj.Metadata.Labels["pod-security.kubernetes.io/"+mode], "%s: namespace %s, %s", f, obj.Metadata.Name, mode)
				}
			case "ClusterRole":
				for _, g := range grants(obj.Rules) {
					require.NotEqual(t, "create pods", g, "%s: the ClusterRole lets the worker create pods in every namespace", f)
				}
			}
		}
	}
	require.Equal(t, 2, namespaces, "rackroll and %s", keyset.NodeNamespace)
}
