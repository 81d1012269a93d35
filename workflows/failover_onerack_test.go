package workflows

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/stretchr/testify/require"
)

// oneRackWithMgmt4 is the one-rack example with a fourth management
// server: the site keeps no spare, but a healthy server could stand in.
func oneRackWithMgmt4(t *testing.T) *fakeSite {
	raw, err := os.ReadFile("../examples/one-rack.yaml")
	require.NoError(t, err)
	mgmt4 := `      - name: rack1-mgmt4
        role: management
        bmc: {address: "https://10.0.1.14", credentials: default}
        bootMACAddress: "52:54:00:01:00:04"
        serialNumber: "SN-R1M04"
      - name: rack1-c1
`
	inv := strings.Replace(string(raw), "      - name: rack1-c1\n", mgmt4, 1)
	path := filepath.Join(t.TempDir(), "one-rack-mgmt4.yaml")
	require.NoError(t, os.WriteFile(path, []byte(inv), 0o600))
	return newFakeSite(t, path)
}

// Issue 27 on one rack: failover never settles for fewer active KCPs than
// the healthy servers allow. A failed KCP is replaced by the healthy
// management server; nobody becomes a spare (the table keeps none).
func TestFailoverOnOneRackPromotesAManagementServer(t *testing.T) {
	r := oneRackWithMgmt4(t)
	require.Equal(t, model.RoleManagement, r.role("rack1-mgmt4"))
	st := runFailover(t, r, "rack1-mgmt2")
	require.Empty(t, st.Error)
	require.True(t, st.Promoted)
	require.Equal(t, "rack1-mgmt4", st.Plan.Spare, "the stand-in")
	require.Empty(t, st.NewSpare, "a one-rack site keeps no spare")
	require.Equal(t, model.RoleKCP, r.role("rack1-mgmt4"))
	require.Equal(t, model.RoleManagement, r.role("rack1-mgmt2"))
	active, spares := 0, 0
	for _, b := range r.st.Cluster.BMMs {
		switch {
		case b.HasRole(model.RoleKCP) && !b.MarkedUnhealthy():
			active++
		case b.HasRole(model.RoleKCPSpare):
			spares++
		}
	}
	require.Equal(t, 3, active, "the control plane is whole")
	require.Zero(t, spares)
	require.Empty(t, r.st.Leases)
}

// With no healthy management server to stand in, the failed KCP is taken
// out and the control plane runs one short, saying why the fourth server
// could not serve.
func TestFailoverOnOneRackWithoutAStandInRunsShort(t *testing.T) {
	r := oneRackWithMgmt4(t)
	r.bmm("rack1-mgmt4").ReadyState = model.ReadyUnknown
	env := r.newEnv()
	r.bmm("rack1-mgmt2").DetailedStatusMessage = model.UnhealthyMessage
	env.ExecuteWorkflow(KCPFailoverWorkflow, api.FailoverInput{Cluster: r.st.Cluster.Name, Failed: "rack1-mgmt2"})
	require.NoError(t, env.GetWorkflowError())
	var st struct{ Error string }
	require.NoError(t, env.GetWorkflowResult(&st))
	for _, w := range []string{"rack1-mgmt4: its node is not Ready (Unknown)", "runs one KCP short"} {
		require.Contains(t, st.Error, w)
	}
	require.Equal(t, model.RoleKCP, r.role("rack1-mgmt2"), "the failed KCP keeps its role until replaced")
	require.Equal(t, model.RoleManagement, r.role("rack1-mgmt4"))
}
