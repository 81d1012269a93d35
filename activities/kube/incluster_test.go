package kube

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/client-go/rest"
)

func TestInClusterOutsideAPodSaysSo(t *testing.T) {
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	t.Setenv("KUBERNETES_SERVICE_PORT", "")
	_, err := InCluster().Clientset(context.Background())
	require.ErrorContains(t, err, "kubernetes.inCluster is true but this process is not in a pod: KUBERNETES_SERVICE_HOST is not set")
	require.ErrorContains(t, err, "kubernetes.kubeconfig")
}

func TestInClusterUsesThePodsConfig(t *testing.T) {
	calls := 0
	s := &inCluster{config: func() (*rest.Config, error) { calls++; return &rest.Config{Host: "https://10.0.0.1:443"}, nil }}
	cs, err := s.Clientset(context.Background())
	require.NoError(t, err)
	again, err := s.Clientset(context.Background())
	require.NoError(t, err)
	require.Same(t, cs, again)
	require.Equal(t, 1, calls, "built once")

	bad := &inCluster{config: func() (*rest.Config, error) { return nil, errors.New("open token: permission denied") }}
	_, err = bad.Clientset(context.Background())
	require.ErrorContains(t, err, "kubernetes.inCluster: the pod's ServiceAccount credentials: open token: permission denied")
}
