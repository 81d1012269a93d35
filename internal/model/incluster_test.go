package model

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// kubernetes: {inCluster: true} is a third way to reach the API (issue 23),
// exclusive with the other two, and enough for an inventory commands run on.
func TestInClusterValidates(t *testing.T) {
	inv := site(3, 2, 2)
	inv.Kubernetes = KubernetesSpec{InCluster: true}
	assert.NoError(t, inv.ValidateForSite())

	y := strings.Replace(siteYAML, "kubeconfig: /etc/rackroll/site-a.kubeconfig", "inCluster: true", 1)
	parsed, err := ParseInventory([]byte(y))
	require.NoError(t, err)
	assert.True(t, parsed.Kubernetes.InCluster)
	assert.NoError(t, parsed.ValidateForSite())
}

func TestInClusterIsExclusive(t *testing.T) {
	for _, tc := range []struct {
		name         string
		k            KubernetesSpec
		field, value string
	}{
		{"with kubeconfig", KubernetesSpec{InCluster: true, Kubeconfig: "/etc/k"}, "kubernetes.kubeconfig", "/etc/k"},
		{"with secret", KubernetesSpec{InCluster: true, KubeconfigSecretRef: &SecretRef{Namespace: "ns", Name: "kc"}}, "kubernetes.kubeconfigSecretRef", "ns/kc"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inv := site(1, 3, 1)
			inv.Kubernetes = tc.k
			var ve *ValidationError
			require.True(t, errors.As(inv.ValidateForSite(), &ve))
			require.Len(t, ve.Problems, 1, ve.Error())
			p := ve.Problems[0]
			assert.Equal(t, tc.field, p.Field)
			assert.Equal(t, tc.value, p.Value)
			assert.Contains(t, p.Message, "not allowed with inCluster: true")
			assert.Contains(t, p.Message, "set one of kubeconfig, kubeconfigSecretRef or inCluster")
		})
	}
	none := site(1, 3, 1)
	none.Kubernetes = KubernetesSpec{}
	require.ErrorContains(t, none.ValidateForSite(), "or inCluster: true")
}

// siteYAML is a minimal one-rack inventory as an operator writes it.
const siteYAML = `cluster: site-a
runtimeVersion: 4.1.2
kubernetes:
  kubeconfig: /etc/rackroll/site-a.kubeconfig
bmcCredentials:
  default: {usernameFile: /etc/rackroll/bmc/username, passwordFile: /etc/rackroll/bmc/password}
racks:
  - name: rack1
    servers:
      - {name: rack1-mgmt1, role: management, bmc: {address: "https://10.1.1.11", credentials: default}, bootMACAddress: "52:54:00:01:00:01"}
      - {name: rack1-mgmt2, role: management, bmc: {address: "https://10.1.1.12", credentials: default}, bootMACAddress: "52:54:00:01:00:02"}
      - {name: rack1-mgmt3, role: management, bmc: {address: "https://10.1.1.13", credentials: default}, bootMACAddress: "52:54:00:01:00:03"}
      - {name: rack1-c1, role: compute, bmc: {address: "https://10.1.1.21", credentials: default}, bootMACAddress: "52:54:00:01:00:21"}
`
