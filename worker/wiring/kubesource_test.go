package wiring

import (
	"context"
	"testing"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/stretchr/testify/require"
)

// A ledger that says in-cluster makes the worker use its pod's
// ServiceAccount; outside a pod that fails saying so.
func TestInClusterRefUsesThePodsIdentity(t *testing.T) {
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	src := newClusterClients(nil, nil).sourceFor(api.KubeconfigInCluster)
	_, err := src.Clientset(context.Background())
	require.ErrorContains(t, err, "kubernetes.inCluster is true but this process is not in a pod: KUBERNETES_SERVICE_HOST is not set")
}
