package model

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const examples = "../../examples"

func TestExamplesAreValid(t *testing.T) {
	for _, tc := range []struct {
		file       string
		site       bool // has a kubernetes section
		racks      int
		mgmt, comp int
	}{
		{"one-rack.yaml", false, 1, 3, 4},
		{"two-rack.yaml", false, 2, 4, 8},
		{"four-rack.yaml", true, 4, 10, 32},
	} {
		t.Run(tc.file, func(t *testing.T) {
			inv, err := LoadInventory(filepath.Join(examples, tc.file))
			require.NoError(t, err)
			require.NoError(t, inv.Validate())
			if tc.site {
				require.NoError(t, inv.ValidateForSite())
			}
			assert.Len(t, inv.RackNames(), tc.racks)
			roles := map[Role]int{}
			for _, s := range inv.Servers() {
				roles[s.Server.Role]++
			}
			assert.Equal(t, map[Role]int{RoleManagement: tc.mgmt, RoleCompute: tc.comp}, roles)
		})
	}
}

func TestFourRackExample(t *testing.T) {
	inv, err := LoadInventory(filepath.Join(examples, "four-rack.yaml"))
	require.NoError(t, err)
	assert.Equal(t, "site-a", inv.Cluster)
	assert.Equal(t, "4.1.2", inv.RuntimeVersion)
	assert.Equal(t, "/etc/rackroll/site-a.kubeconfig", inv.Kubernetes.Kubeconfig)
	assert.Equal(t, CredentialRef{UsernameEnv: "BMC_USERNAME", PasswordEnv: "BMC_PASSWORD"}, inv.BMCCredentials["default"])
	assert.Nil(t, inv.Remediation, "operator defaults")
	assert.Equal(t, []string{"rack1", "rack2", "rack3", "rack4"}, inv.RackNames())
	assert.Equal(t, map[string]int{"rack1": 8, "rack2": 8, "rack3": 8, "rack4": 8}, inv.ComputeCounts())
	for _, r := range inv.Racks {
		mgmt := 0
		for _, s := range r.Servers {
			assert.True(t, strings.HasPrefix(s.Name, r.Name+"-"), s.Name)
			assert.True(t, strings.HasPrefix(s.BMC.Address, "https://10.1."+strings.TrimPrefix(r.Name, "rack")+"."), s.BMC.Address)
			if s.Role == RoleManagement {
				mgmt++
			}
		}
		assert.True(t, mgmt >= 2 && mgmt <= 3, "%s has %d management servers", r.Name, mgmt)
	}
}
