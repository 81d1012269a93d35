package kube

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// The caller's environment never decides these results: each test sets
// $KUBECONFIG itself and gives the rules a home file of its own.

const testKubeconfig = `apiVersion: v1
kind: Config
clusters: [{name: mgmt, cluster: {server: "https://10.9.0.1:6443"}}]
users: [{name: w, user: {token: not-a-secret}}]
contexts: [{name: mgmt-ctx, context: {cluster: mgmt, user: w}}]
current-context: mgmt-ctx
`

func notInCluster() (*rest.Config, error) { return nil, rest.ErrNotInCluster }

// rulesHome is client-go's default rules, read after t.Setenv, with home
// as ~/.kube/config (client-go fixes that path when the process starts).
func rulesHome(home string) *clientcmd.ClientConfigLoadingRules {
	r := clientcmd.NewDefaultClientConfigLoadingRules()
	if os.Getenv(clientcmd.RecommendedConfigPathEnvVar) == "" {
		r.Precedence = []string{home}
	}
	r.MigrationRules = nil
	return r
}

func writeKubeconfig(t *testing.T) string {
	p := filepath.Join(t.TempDir(), "mgmt.kubeconfig")
	require.NoError(t, os.WriteFile(p, []byte(testKubeconfig), 0o600))
	return p
}

func host(t *testing.T, m Management) string {
	t.Helper()
	require.NotNil(t, m.Source)
	return m.Source.(*built).cfg.Host
}

func TestManagementFromKUBECONFIG(t *testing.T) {
	p := writeKubeconfig(t)
	t.Setenv("KUBECONFIG", p)
	m, err := findManagement("", notInCluster, rulesHome(filepath.Join(t.TempDir(), "none")))
	require.NoError(t, err)
	require.Equal(t, "https://10.9.0.1:6443", host(t, m))
	require.Equal(t, "kubeconfig "+p+" ($KUBECONFIG), context mgmt-ctx", m.From)
	cs, err := m.Source.Clientset(t.Context())
	require.NoError(t, err)
	require.NotNil(t, cs)
	require.NotNil(t, m.Clientset())
}

func TestManagementFromHomeFile(t *testing.T) {
	t.Setenv("KUBECONFIG", "")
	p := writeKubeconfig(t)
	m, err := findManagement("", notInCluster, rulesHome(p))
	require.NoError(t, err)
	require.Equal(t, "https://10.9.0.1:6443", host(t, m))
	require.Equal(t, "kubeconfig "+p+", context mgmt-ctx", m.From)
}

func TestManagementNoneIsNoSecrets(t *testing.T) {
	t.Setenv("KUBECONFIG", "")
	m, err := findManagement("", notInCluster, rulesHome(filepath.Join(t.TempDir(), "none")))
	require.NoError(t, err)
	require.Nil(t, m.Source)
	require.Nil(t, m.Clientset())
}

func TestManagementInClusterFirst(t *testing.T) {
	t.Setenv("KUBECONFIG", writeKubeconfig(t))
	pod := func() (*rest.Config, error) { return &rest.Config{Host: "https://10.96.0.1:443"}, nil }
	m, err := findManagement("", pod, rulesHome(""))
	require.NoError(t, err)
	require.Equal(t, "https://10.96.0.1:443", host(t, m))
	require.Equal(t, "in-cluster (the pod's ServiceAccount)", m.From)

	broken := func() (*rest.Config, error) { return nil, errors.New("open token: permission denied") }
	_, err = findManagement("", broken, rulesHome(""))
	require.ErrorContains(t, err, "in a pod, but its ServiceAccount's credentials do not load: open token: permission denied")
}

func TestManagementExplicitBeatsThePod(t *testing.T) {
	t.Setenv("KUBECONFIG", "")
	p := writeKubeconfig(t)
	pod := func() (*rest.Config, error) { return &rest.Config{Host: "https://10.96.0.1:443"}, nil }
	m, err := findManagement(p, pod, rulesHome(""))
	require.NoError(t, err)
	require.Equal(t, "https://10.9.0.1:6443", host(t, m))
	require.Equal(t, "kubeconfig "+p+" (--kubeconfig), context mgmt-ctx", m.From)
}

func TestManagementRefusals(t *testing.T) {
	t.Setenv("KUBECONFIG", "")
	missing := filepath.Join(t.TempDir(), "missing.kubeconfig")
	_, err := findManagement(missing, notInCluster, rulesHome(""))
	require.ErrorContains(t, err, "management cluster: load kubeconfig "+missing+" (--kubeconfig)")

	t.Setenv("KUBECONFIG", missing)
	_, err = findManagement("", notInCluster, rulesHome(""))
	require.ErrorContains(t, err, "kubeconfig "+missing+" ($KUBECONFIG) holds no cluster: set --kubeconfig or $KUBECONFIG to a kubeconfig file that exists")

	bad := filepath.Join(t.TempDir(), "bad.kubeconfig")
	require.NoError(t, os.WriteFile(bad, []byte("clusters: {not: [a list"), 0o600))
	t.Setenv("KUBECONFIG", bad)
	_, err = findManagement("", notInCluster, rulesHome(""))
	require.ErrorContains(t, err, "management cluster: load kubeconfig "+bad+" ($KUBECONFIG)")
}
