package deploy_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/lab/kubeapi"
	"github.com/rackroll/rackroll/internal/toolbin"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"
)

// What deploy/rollout names.
const (
	rolloutDir = "../../deploy/rollout"
	rolloutSA  = "rackroll-rollout"
)

// rolloutDeploy copies deploy/rollout into a temp dir with build and
// previous in its build.env, as an operator edits it for a release.
func rolloutDeploy(t *testing.T, build, previous string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "rollout")
	require.NoError(t, os.CopyFS(dir, os.DirFS(rolloutDir)))
	env := filepath.Join(dir, "build.env")
	b, err := os.ReadFile(env)
	require.NoError(t, err)
	set := map[string]string{"BUILD": build, "PREVIOUS_BUILD": previous}
	var lines []string
	for _, l := range strings.Split(string(b), "\n") {
		k, _, _ := strings.Cut(l, "=")
		if v, ok := set[k]; ok {
			l = k + "=" + v
			delete(set, k)
		}
		lines = append(lines, l)
	}
	require.Empty(t, set, "deploy/rollout/build.env lacks these keys")
	require.NoError(t, os.WriteFile(env, []byte(strings.Join(lines, "\n")), 0o644))
	return dir
}

func decode[T any](t *testing.T, docs map[string]string, key string) T {
	t.Helper()
	var v T
	require.Contains(t, docs, key)
	require.NoError(t, yaml.UnmarshalStrict([]byte(docs[key]), &v), key)
	return v
}

// deploy/rollout for build b after a renders the Job rackroll-rollout-b
// running the image's starter on b, scaling down the Deployment
// deploy/versioned names for a, hardened for Pod Security restricted, run
// once; and its own ServiceAccount with get and patch on that Deployment
// alone, in rackroll, nothing cluster-wide. Its Temporal settings are
// deploy/'s temporal.env, as the workers read them.
func TestRolloutJobRunsTheBuildsRolloutWithItsOwnGrant(t *testing.T) {
	if testing.Short() {
		t.Skip("renders deploy/ with bin/kubectl")
	}
	t.Parallel()
	docs := render(t, rolloutDeploy(t, "b", "a"))
	var keys []string
	for k := range docs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	require.Equal(t, []string{"Job/rackroll-rollout-b", "Role/rackroll-rollout", "RoleBinding/rackroll-rollout", "ServiceAccount/rackroll-rollout"}, keys,
		"no ClusterRole, and build.env's ConfigMap stays local")
	for k, d := range docs {
		var m metav1.PartialObjectMetadata
		require.NoError(t, yaml.Unmarshal([]byte(d), &m))
		require.Equal(t, namespace, m.Namespace, k)
	}

	job := decode[batchv1.Job](t, docs, "Job/rackroll-rollout-b")
	require.Equal(t, int32(0), *job.Spec.BackoffLimit, "a failed rollout is read, not retried")
	require.NotNil(t, job.Spec.TTLSecondsAfterFinished)
	pod := job.Spec.Template.Spec
	require.Equal(t, rolloutSA, pod.ServiceAccountName)
	require.Equal(t, corev1.RestartPolicyNever, pod.RestartPolicy)
	require.Len(t, pod.Containers, 1)
	c := pod.Containers[0]
	require.Equal(t, []string{"/usr/local/bin/starter"}, c.Command, "the image's starter (Dockerfile's default target)")
	require.Equal(t, []string{"self-upgrade", "rollout", "--build", "b", "--scale-down", "rackroll/rackroll-worker-a", "--wait=15m", "--drain-wait=20m"}, c.Args)
	versioned := render(t, versionedDeploy(t, "a"))
	require.Contains(t, versioned, "Deployment/rackroll-worker-a", "--scale-down names build a's Deployment as deploy/versioned does")
	var bound time.Duration
	for _, a := range c.Args {
		if _, v, ok := strings.Cut(a, "wait="); ok {
			d, err := time.ParseDuration(v)
			require.NoError(t, err, a)
			bound += d
		}
	}
	require.NotNil(t, job.Spec.ActiveDeadlineSeconds)
	require.Greater(t, time.Duration(*job.Spec.ActiveDeadlineSeconds)*time.Second, bound+5*time.Minute,
		"the deadline bounds a hang, not the rollout's own --wait and --drain-wait")

	require.True(t, *pod.SecurityContext.RunAsNonRoot)
	require.Equal(t, corev1.SeccompProfileTypeRuntimeDefault, pod.SecurityContext.SeccompProfile.Type)
	sc := c.SecurityContext
	require.False(t, *sc.AllowPrivilegeEscalation)
	require.True(t, *sc.ReadOnlyRootFilesystem)
	require.Equal(t, []corev1.Capability{"ALL"}, sc.Capabilities.Drop)
	require.Empty(t, sc.Capabilities.Add)
	require.Nil(t, sc.Privileged)
	require.False(t, pod.HostNetwork || pod.HostPID || pod.HostIPC, "nothing of the host")

	sameTemporalAsTheWorkers(t, c)

	role := decode[rbacv1.Role](t, docs, "Role/rackroll-rollout")
	for _, r := range role.Rules {
		for _, s := range slices.Concat(r.APIGroups, r.Resources, r.Verbs, r.ResourceNames) {
			require.NotContains(t, s, "*", "rule %+v has a wildcard", r)
		}
		require.Equal(t, []string{"rackroll-worker-a"}, r.ResourceNames, "the previous build's Deployment only")
	}
	// starter/selfupgrade_scale.go: Get, then a merge patch of spec.replicas
	// on the Deployment itself (not deployments/scale).
	require.Equal(t, []string{"get deployments.apps", "patch deployments.apps"}, grants(role.Rules))
	binding := decode[rbacv1.RoleBinding](t, docs, "RoleBinding/rackroll-rollout")
	require.Equal(t, rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: role.Name}, binding.RoleRef)
	require.Equal(t, []rbacv1.Subject{{Kind: "ServiceAccount", Name: rolloutSA, Namespace: namespace}}, binding.Subjects)

	dockerfile, err := os.ReadFile("../../Dockerfile")
	require.NoError(t, err)
	last := string(dockerfile)[strings.LastIndex(string(dockerfile), "\nFROM "):]
	require.Regexp(t, regexp.MustCompile(`COPY --from=build [^\n]*/out/starter[^\n]* /usr/local/bin/\n`), last,
		"the default target ships the starter at /usr/local/bin")
}

// sameTemporalAsTheWorkers: the Job takes deploy/'s fixed-name copy of
// temporal.env, whose data is the workers' own ConfigMap's, and mounts the
// TLS and codec Secrets where the workers do, the paths temporal.env names.
func sameTemporalAsTheWorkers(t *testing.T, c corev1.Container) {
	t.Helper()
	base := render(t, deployDir)
	worker := decode[appsv1.Deployment](t, base, "Deployment/rackroll-worker").Spec.Template.Spec.Containers[0]
	var hashed string
	for _, from := range worker.EnvFrom {
		if from.ConfigMapRef != nil && strings.HasPrefix(from.ConfigMapRef.Name, "rackroll-temporal-") {
			hashed = from.ConfigMapRef.Name
		}
	}
	require.NotEmpty(t, hashed)
	require.Equal(t, []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "rackroll-temporal-jobs"}}}}, c.EnvFrom)
	require.Equal(t, decode[corev1.ConfigMap](t, base, "ConfigMap/"+hashed).Data, decode[corev1.ConfigMap](t, base, "ConfigMap/rackroll-temporal-jobs").Data)
	require.Equal(t, worker.Env, c.Env, "the API key as the workers get it")
	mounts := map[string]string{}
	for _, m := range worker.VolumeMounts {
		mounts[m.Name] = m.MountPath
	}
	for _, m := range c.VolumeMounts {
		require.Equal(t, mounts[m.Name], m.MountPath, m.Name)
		require.True(t, m.ReadOnly, m.Name)
	}
	require.Len(t, c.VolumeMounts, 2, "Temporal's TLS and the codec key, nothing of the site's")
}

// On the lab's apiserver (RBAC and Pod Security on): deploy/ and then
// deploy/rollout for b after a apply without a Pod Security warning; as
// the rollout ServiceAccount, what the starter's --scale-down does to
// rackroll/rackroll-worker-a succeeds and leaves it at 0 replicas, while
// a Secret, build b's Deployment, a Deployment of the same name in another
// namespace, listing, and the scale subresource are forbidden.
func TestRolloutJobGrantOnTheLab(t *testing.T) {
	if testing.Short() {
		t.Skip("starts etcd and kube-apiserver")
	}
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	kube, err := kubeapi.Start(ctx, kubeapi.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = kube.Stop() })
	admin := kube.Client()
	// The test's own Deployments and Secret, without Pod Security's warnings
	// about their bare pod template.
	quiet := kube.RESTConfig()
	quiet.WarningHandler = rest.NoWarnings{}
	setup, err := kubernetes.NewForConfig(quiet)
	require.NoError(t, err)

	applyDeploy(t, kube)
	kubectl, err := toolbin.Path("kubectl")
	require.NoError(t, err)
	out, err := exec.CommandContext(ctx, kubectl, "--kubeconfig", kube.Kubeconfig(), "apply", "-k", rolloutDeploy(t, "b", "a")).CombinedOutput()
	require.NoError(t, err, "kubectl apply -k deploy/rollout:\n%s", out)
	require.NotContains(t, string(out), "Warning", "Pod Security restricted admits the Job's pods")
	_, err = admin.BatchV1().Jobs(namespace).Get(ctx, "rackroll-rollout-b", metav1.GetOptions{})
	require.NoError(t, err)

	_, err = admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "elsewhere"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	for _, d := range []struct{ ns, name, build string }{{namespace, "rackroll-worker-a", "a"}, {namespace, "rackroll-worker-b", "b"}, {"elsewhere", "rackroll-worker-a", "a"}} {
		_, err := setup.AppsV1().Deployments(d.ns).Create(ctx, buildWorkers(d.name, d.build), metav1.CreateOptions{})
		require.NoError(t, err)
	}
	_, err = admin.CoreV1().Secrets(namespace).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "rackroll-bmc-credentials"},
		StringData: map[string]string{"password": "x"}}, metav1.CreateOptions{})
	require.NoError(t, err)

	cfg := kube.RESTConfig()
	cfg.Impersonate = rest.ImpersonationConfig{UserName: "system:serviceaccount:" + namespace + ":" + rolloutSA}
	job, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)

	// What starter/selfupgrade_scale.go calls: checkScaleDown's get, then
	// scaleDown's merge patch.
	get := func(ns, name string) error {
		_, err := job.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
		return err
	}
	toZero := func(ns, name string) error {
		_, err := job.AppsV1().Deployments(ns).Patch(ctx, name, types.MergePatchType, []byte(`{"spec":{"replicas":0}}`), metav1.PatchOptions{})
		return err
	}
	require.NoError(t, get(namespace, "rackroll-worker-a"))
	require.NoError(t, toZero(namespace, "rackroll-worker-a"))
	replicas := func(ns, name string) int32 {
		d, err := admin.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
		require.NoError(t, err)
		return *d.Spec.Replicas
	}
	require.Equal(t, int32(0), replicas(namespace, "rackroll-worker-a"))

	forbidden := func(what string, err error) {
		t.Helper()
		require.True(t, apierrors.IsForbidden(err), "%s: want forbidden, got %v", what, err)
	}
	forbidden("read a Deployment in another namespace", get("elsewhere", "rackroll-worker-a"))
	forbidden("scale a Deployment in another namespace", toZero("elsewhere", "rackroll-worker-a"))
	forbidden("read the new build's Deployment", get(namespace, "rackroll-worker-b"))
	forbidden("scale the new build's Deployment", toZero(namespace, "rackroll-worker-b"))
	_, err = job.CoreV1().Secrets(namespace).Get(ctx, "rackroll-bmc-credentials", metav1.GetOptions{})
	forbidden("read a Secret", err)
	_, err = job.AppsV1().Deployments(namespace).List(ctx, metav1.ListOptions{})
	forbidden("list Deployments", err)
	_, err = job.AppsV1().Deployments(namespace).UpdateScale(ctx, "rackroll-worker-a",
		&autoscalingv1.Scale{ObjectMeta: metav1.ObjectMeta{Name: "rackroll-worker-a", Namespace: namespace}}, metav1.UpdateOptions{})
	forbidden("update deployments/scale", err)
	require.Equal(t, int32(2), replicas(namespace, "rackroll-worker-b"))
	require.Equal(t, int32(2), replicas("elsewhere", "rackroll-worker-a"))
}

// buildWorkers is a build's worker Deployment as deploy/versioned names and
// labels it (the lab runs no controller: no pod starts).
func buildWorkers(name, build string) *appsv1.Deployment {
	two := int32(2)
	labels := map[string]string{"app.kubernetes.io/name": "rackroll-worker", "rackroll.io/build": build}
	return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.DeploymentSpec{Replicas: &two, Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "worker", Image: "rackroll:" + build}}}}}}
}
