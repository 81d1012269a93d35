package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

func TestParseScaleDown(t *testing.T) {
	got, err := parseScaleDown("rackroll/rackroll-worker-a")
	require.NoError(t, err)
	require.Equal(t, scaleTarget{"rackroll", "rackroll-worker-a"}, got)
	for _, bad := range []string{"", "rackroll", "/w", "ns/", "Ns/w", "ns/w/x", "ns/W"} {
		_, err := parseScaleDown(bad)
		require.ErrorContains(t, err, "--scale-down \""+bad+"\": must be NAMESPACE/DEPLOYMENT", bad)
	}
}

// The build's Deployment is checked before the routing changes and goes to
// 0 replicas once drained; another build's Deployment is refused.
func TestScaleDownTheDrainedBuildsWorkers(t *testing.T) {
	ctx := context.Background()
	two := int32(2)
	worker := func(name, build string) *appsv1.Deployment {
		return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "rackroll", Name: name},
			Spec: appsv1.DeploymentSpec{Replicas: &two, Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{buildLabel: build}}}}}
	}
	cs := fake.NewClientset(worker("rackroll-worker-a", "a"), worker("rackroll-worker-b", "b"))
	a := scaleTarget{"rackroll", "rackroll-worker-a"}
	require.NoError(t, checkScaleDown(ctx, cs, a, "a"))
	require.ErrorContains(t, checkScaleDown(ctx, cs, scaleTarget{"rackroll", "rackroll-worker-b"}, "a"),
		`--scale-down rackroll/rackroll-worker-b: its pods are build "b" (label rackroll.io/build), not "a"`)
	require.ErrorContains(t, checkScaleDown(ctx, cs, scaleTarget{"rackroll", "nope"}, "a"), "--scale-down rackroll/nope")

	require.NoError(t, scaleDown(ctx, cs, a))
	d, err := cs.AppsV1().Deployments("rackroll").Get(ctx, "rackroll-worker-a", metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, int32(0), *d.Spec.Replicas)
	d, err = cs.AppsV1().Deployments("rackroll").Get(ctx, "rackroll-worker-b", metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, int32(2), *d.Spec.Replicas, "the other build keeps its workers")
}
