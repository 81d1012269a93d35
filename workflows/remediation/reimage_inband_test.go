package remediation

import (
	"strings"
	"testing"

	"github.com/rackroll/rackroll/internal/remediate"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/require"
)

func TestReprovisionIsJudgedInBand(t *testing.T) {
	r := wftest.NewFakeSite(t, wftest.Example("four-rack.yaml"))
	r.Set(wftest.Compute, func(n *wftest.FakeNode) { n.Rofs = true })
	r.NoBoot[wftest.Compute] = true // reset, never booted again: the read-only node stays
	st := wftest.RunRemediation(t, r, wftest.Compute, remediate.ReadOnlyRootFS, RemediationWorkflow, KCPFailoverWorkflow)
	require.Equal(t, []string{"reprovision:failed", "mark-unhealthy:ok", "power-off:ok"}, ranSteps(st.Steps))
	require.True(t, strings.Contains(st.Steps[0].Detail, "still the boot from before the reset"), st.Steps[0].Detail)
	require.Equal(t, wftest.Compute+" not-back", r.Ejects[0])
}
