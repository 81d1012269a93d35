package deploy_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/lab/kubeapi"
	"github.com/rackroll/rackroll/internal/sitecheck"
	"github.com/rackroll/rackroll/internal/toolbin"
	"github.com/stretchr/testify/require"
	authnv1 "k8s.io/api/authentication/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/yaml"
)

// What deploy/ names: the worker's namespace, ServiceAccount and ClusterRole.
const (
	namespace      = "rackroll"
	serviceAccount = "rackroll-worker"
	clusterRole    = "rackroll-worker"
	deployDir      = "../../deploy"
)

// grants expands a ClusterRole's rules into "verb resource[.group]" names,
// the form sitecheck.Needed uses.
func grants(rules []rbacv1.PolicyRule) []string {
	var out []string
	for _, r := range rules {
		for _, g := range r.APIGroups {
			for _, res := range r.Resources {
				for _, v := range r.Verbs {
					name := v + " " + res
					if g != "" {
						name += "." + g
					}
					out = append(out, name)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// The ClusterRole grants exactly what `site check` asks for, with no
// wildcard: the list and the manifest cannot drift apart.
func TestClusterRoleIsWhatSiteCheckAsks(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join(deployDir, "clusterrole.yaml"))
	require.NoError(t, err)
	var cr rbacv1.ClusterRole
	require.NoError(t, yaml.UnmarshalStrict(b, &cr))
	for _, r := range cr.Rules {
		for _, s := range slices.Concat(r.APIGroups, r.Resources, r.Verbs) {
			require.NotContains(t, s, "*", "rule %+v has a wildcard", r)
		}
		require.Empty(t, r.ResourceNames, "rackroll touches every node and pod")
		require.Empty(t, r.NonResourceURLs)
	}
	want := sitecheck.Needed()
	slices.Sort(want)
	require.Equal(t, want, grants(cr.Rules))
}

// applyDeploy runs `kubectl apply -k deploy/` against the lab as its admin.
func applyDeploy(t *testing.T, kube *kubeapi.Server) {
	t.Helper()
	kubectl, err := toolbin.Path("kubectl")
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, kubectl, "--kubeconfig", kube.Kubeconfig(), "apply", "-k", deployDir).CombinedOutput()
	require.NoError(t, err, "kubectl apply -k deploy/:\n%s", out)
	t.Logf("kubectl apply -k deploy/:\n%s", out)
}

// workerKubeconfig mints a token for deploy/'s ServiceAccount
// (TokenRequest, as the kubelet does for the pod) and writes a kubeconfig
// holding only that token and the lab's CA: the identity the worker's pod
// would have.
func workerKubeconfig(t *testing.T, kube *kubeapi.Server, path string) string {
	t.Helper()
	ctx := context.Background()
	ttl := int64(2 * time.Hour / time.Second)
	tr, err := kube.Client().CoreV1().ServiceAccounts(namespace).CreateToken(ctx, serviceAccount,
		&authnv1.TokenRequest{Spec: authnv1.TokenRequestSpec{ExpirationSeconds: &ttl}}, metav1.CreateOptions{})
	require.NoError(t, err)
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["site"] = &clientcmdapi.Cluster{Server: kube.URL(), CertificateAuthorityData: kube.RESTConfig().CAData}
	cfg.AuthInfos["rackroll-worker"] = &clientcmdapi.AuthInfo{Token: tr.Status.Token}
	cfg.Contexts["site"] = &clientcmdapi.Context{Cluster: "site", AuthInfo: "rackroll-worker"}
	cfg.CurrentContext = "site"
	require.NoError(t, clientcmd.WriteToFile(*cfg, path))
	return path
}

// clientOf is a clientset for a kubeconfig file.
func clientOf(t *testing.T, path string) kubernetes.Interface {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	require.NoError(t, err)
	cs, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	return cs
}

// withoutVerb removes verb from the ClusterRole's rule for resource, as an
// operator trimming it would.
func withoutVerb(t *testing.T, kube *kubeapi.Server, resource, verb string) {
	t.Helper()
	ctx := context.Background()
	crs := kube.Client().RbacV1().ClusterRoles()
	cr, err := crs.Get(ctx, clusterRole, metav1.GetOptions{})
	require.NoError(t, err)
	for i, r := range cr.Rules {
		if slices.Contains(r.Resources, resource) {
			cr.Rules[i].Verbs = slices.DeleteFunc(r.Verbs, func(v string) bool { return v == verb })
		}
	}
	_, err = crs.Update(ctx, cr, metav1.UpdateOptions{})
	require.NoError(t, err)
}
