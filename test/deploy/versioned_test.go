package deploy_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/lab/kubeapi"
	"github.com/rackroll/rackroll/internal/selfupgrade"
	"github.com/rackroll/rackroll/internal/toolbin"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"
)

// versionedDeploy copies deploy/ into a temp dir with the versioned
// component on (docs/install.md#with-worker-versioning-builds-side-by-side)
// and build in build.env, as an operator edits them for a release.
func versionedDeploy(t *testing.T, build string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "deploy")
	require.NoError(t, os.CopyFS(dir, os.DirFS(deployDir)))
	kz := filepath.Join(dir, "kustomization.yaml")
	b, err := os.ReadFile(kz)
	require.NoError(t, err)
	on := strings.Replace(string(b), "# components: [versioned]", "components: [versioned]", 1)
	require.NotEqual(t, string(b), on, "deploy/kustomization.yaml has no `# components: [versioned]` line to turn on")
	require.NoError(t, os.WriteFile(kz, []byte(on), 0o644))
	env := filepath.Join(dir, "versioned", "build.env")
	b, err = os.ReadFile(env)
	require.NoError(t, err)
	var lines []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, selfupgrade.EnvBuildID+"=") {
			l = selfupgrade.EnvBuildID + "=" + build
		}
		lines = append(lines, l)
	}
	require.NoError(t, os.WriteFile(env, []byte(strings.Join(lines, "\n")), 0o644))
	return dir
}

// render is `kubectl kustomize dir`, split into documents by kind/name.
func render(t *testing.T, dir string) map[string]string {
	t.Helper()
	kubectl, err := toolbin.Path("kubectl")
	require.NoError(t, err)
	out, err := exec.Command(kubectl, "kustomize", dir).CombinedOutput()
	require.NoError(t, err, "kubectl kustomize %s:\n%s", dir, out)
	docs := map[string]string{}
	for _, d := range strings.Split(string(out), "\n---\n") {
		var m metav1.PartialObjectMetadata
		require.NoError(t, yaml.Unmarshal([]byte(d), &m))
		docs[m.Kind+"/"+m.Name] = d
	}
	return docs
}

// Each build renders as its own Deployment, rackroll-worker-<build>, whose
// pods are its own and whose workers join Worker Deployment rackroll as
// that build; every other object is the same for every build, so applying
// the next build changes nothing of the one running. Off by default.
func TestVersionedDeployRendersABuildBesideTheOther(t *testing.T) {
	if testing.Short() {
		t.Skip("renders deploy/ with bin/kubectl")
	}
	t.Parallel()
	base := render(t, deployDir)
	require.Contains(t, base, "Deployment/rackroll-worker", "deploy/ alone stays unversioned")
	a, b := render(t, versionedDeploy(t, "a1")), render(t, versionedDeploy(t, "b2"))
	dep := func(docs map[string]string, build string) appsv1.Deployment {
		var d appsv1.Deployment
		require.Contains(t, docs, "Deployment/rackroll-worker-"+build)
		require.NoError(t, yaml.Unmarshal([]byte(docs["Deployment/rackroll-worker-"+build]), &d))
		return d
	}
	da, db := dep(a, "a1"), dep(b, "b2")
	require.Equal(t, "a1", da.Spec.Selector.MatchLabels["rackroll.io/build"])
	require.Equal(t, "b2", db.Spec.Selector.MatchLabels["rackroll.io/build"], "two Deployments never select each other's pods")
	for _, x := range []struct {
		docs  map[string]string
		d     appsv1.Deployment
		build string
	}{{a, da, "a1"}, {b, db, "b2"}} {
		env := buildEnv(t, x.docs, x.d)
		require.Equal(t, selfupgrade.DefaultDeployment, env[selfupgrade.EnvDeployment])
		require.Equal(t, x.build, env[selfupgrade.EnvBuildID])
		require.Contains(t, x.d.Spec.Template.Spec.Containers[0].Args, "--worker-pods=app.kubernetes.io/name=rackroll-worker,rackroll.io/build="+x.build,
			"a drain never evicts the build's last Ready worker")
	}
	for k, doc := range a {
		if strings.HasPrefix(k, "Deployment/") || strings.HasPrefix(k, "ConfigMap/rackroll-build-") {
			continue
		}
		require.Equal(t, doc, b[k], "%s differs between builds", k)
	}
}

// buildEnv is the variables the Deployment's worker gets from its build's
// generated ConfigMap.
func buildEnv(t *testing.T, docs map[string]string, d appsv1.Deployment) map[string]string {
	t.Helper()
	for _, from := range d.Spec.Template.Spec.Containers[0].EnvFrom {
		if from.ConfigMapRef != nil && strings.HasPrefix(from.ConfigMapRef.Name, "rackroll-build-") {
			var cm corev1.ConfigMap
			require.NoError(t, yaml.Unmarshal([]byte(docs["ConfigMap/"+from.ConfigMapRef.Name]), &cm))
			return cm.Data
		}
	}
	t.Fatalf("Deployment %s takes no rackroll-build ConfigMap", d.Name)
	return nil
}

// applyVersioned applies build a1 and then b2 over an installed deploy/
// (applyDeploy): the apiserver accepts both, and both Deployments run side
// by side, as during a rollout.
func applyVersioned(t *testing.T, kube *kubeapi.Server, cs kubernetes.Interface) {
	t.Helper()
	kubectl, err := toolbin.Path("kubectl")
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, build := range []string{"a1", "b2"} {
		out, err := exec.CommandContext(ctx, kubectl, "--kubeconfig", kube.Kubeconfig(), "apply", "-k", versionedDeploy(t, build)).CombinedOutput()
		require.NoError(t, err, "kubectl apply -k deploy/ with build %s:\n%s", build, out)
	}
	for _, build := range []string{"a1", "b2"} {
		d, err := cs.AppsV1().Deployments(namespace).Get(ctx, "rackroll-worker-"+build, metav1.GetOptions{})
		require.NoError(t, err)
		require.Equal(t, build, d.Spec.Template.Labels["rackroll.io/build"])
	}
}
