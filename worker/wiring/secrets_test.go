package wiring

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
)

// The worker reads a BMC credentials Secret from the cluster it runs in;
// outside one it has no way to (nil), and the resolver says so.
func TestSecretsInReadsFromTheWorkersCluster(t *testing.T) {
	require.Nil(t, secretsIn(nil))
	cs := fake.NewClientset(&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "rackroll", Name: "bmc"},
		Data: map[string][]byte{"username": []byte("root"), "password": []byte("pw")}})
	get := secretsIn(func() (kubernetes.Interface, error) { return cs, nil })
	data, err := get(context.Background(), "rackroll", "bmc")
	require.NoError(t, err)
	require.Equal(t, "root", string(data["username"]))
	_, err = get(context.Background(), "rackroll", "other")
	require.True(t, apierrors.IsNotFound(err), "%v", err)
}
