package deploy_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rackroll/rackroll/internal/keyset"
	"github.com/rackroll/rackroll/internal/sitecheck"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"
)

// deploy/keysets.yaml grants the keyset pods' activity exactly what it
// calls (activities/kube ApplyNodeKeys: create, get and delete pods, in
// keyset.NodeNamespace only, no wildcard, nothing cluster-wide) to the
// worker's ServiceAccount, and makes that namespace privileged for Pod
// Security Admission (the pod mounts the host's /etc and /home); kustomization.yaml
// lists it and leaves its namespace alone.
func TestKeysetGrantIsWhatApplyNodeKeysCalls(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join(deployDir, "keysets.yaml"))
	require.NoError(t, err)
	var ns corev1.Namespace
	var role rbacv1.Role
	var binding rbacv1.RoleBinding
	kinds := map[string]int{}
	for _, doc := range strings.Split(string(b), "\n---\n") {
		var meta struct{ Kind string }
		require.NoError(t, yaml.Unmarshal([]byte(doc), &meta))
		kinds[meta.Kind]++
		switch meta.Kind {
		case "Namespace":
			require.NoError(t, yaml.UnmarshalStrict([]byte(doc), &ns))
		case "Role":
			require.NoError(t, yaml.UnmarshalStrict([]byte(doc), &role))
		case "RoleBinding":
			require.NoError(t, yaml.UnmarshalStrict([]byte(doc), &binding))
		}
	}
	require.Equal(t, map[string]int{"Namespace": 1, "Role": 1, "RoleBinding": 1}, kinds)

	require.Equal(t, keyset.NodeNamespace, ns.Name)
	require.Equal(t, "privileged", ns.Labels["pod-security.kubernetes.io/enforce"])

	require.Equal(t, keyset.NodeNamespace, role.Namespace)
	var got []string
	for _, r := range role.Rules {
		require.Empty(t, r.ResourceNames, "a node's pod name is its own")
		require.Empty(t, r.NonResourceURLs)
		got = append(got, grants([]rbacv1.PolicyRule{r})...)
	}
	slices.Sort(got)
	require.Equal(t, []string{"create pods", "delete pods", "get pods"}, got)
	var asked []string // what `site check` asks, in the same words
	for _, n := range sitecheck.NeededInNamespaces() {
		asked = append(asked, strings.TrimSuffix(n, " in "+keyset.NodeNamespace))
	}
	slices.Sort(asked)
	require.Equal(t, got, asked, "site check asks for what the Role grants")

	require.Equal(t, keyset.NodeNamespace, binding.Namespace)
	require.Equal(t, rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: role.Name}, binding.RoleRef)
	require.Equal(t, []rbacv1.Subject{{Kind: "ServiceAccount", Name: serviceAccount, Namespace: namespace}}, binding.Subjects)

	k, err := os.ReadFile(filepath.Join(deployDir, "kustomization.yaml"))
	require.NoError(t, err)
	require.Contains(t, string(k), "- keysets.yaml")
	require.Contains(t, string(k), "unsetOnly: true", "a plain namespace: would move the Role and its binding to rackroll")
}
