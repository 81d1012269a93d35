package lab

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestTenantLoadIsCheckedAndResolved(t *testing.T) {
	inv := SyntheticInventory("site-a", 3, 2, 2)
	put(t, inv, Section{Lab: &Spec{TenantLoad: map[string]float64{"ghost": 0.5, "rack2": 1.5, "rack1": 0.2, "rack1-c1": 0.7}}})
	err := Validate(inv)
	require.Error(t, err)
	for _, want := range []string{"lab.tenantLoad.ghost", "unknown rack or BMM", "lab.tenantLoad.rack2", "1.5", "between 0 and 1"} {
		require.ErrorContains(t, err, want)
	}
	require.NotContains(t, err.Error(), "lab.tenantLoad.rack1")
	s := &Spec{TenantLoad: map[string]float64{"rack1": 0.2, "rack1-c1": 0.7}}
	require.Equal(t, 0.7, s.LoadOf("rack1", "rack1-c1"), "a server's own entry wins")
	require.Equal(t, 0.2, s.LoadOf("rack1", "rack1-c2"))
	require.Zero(t, s.LoadOf("rack2", "rack2-c1"))
	require.Zero(t, (*Spec)(nil).LoadOf("rack1", "rack1-c1"))
}
