package actions

import (
	"testing"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/require"
)

func TestSameVersionReimageDoesNotPassOnTheOldBoot(t *testing.T) {
	s := wftest.NewActionSite(t)
	s.NoBoot[wftest.Compute] = true // the reset "took effect", the machine never boots again
	_, err := s.RunAction(t, wftest.Act(api.ActionReimage, wftest.Compute))
	require.ErrorContains(t, err, "reimage of rack1-c1 failed: wait for node Ready: node rack1-c1 did not come back on 4.1.2")
	require.ErrorContains(t, err, "still the boot from before the reset")
	require.ErrorContains(t, err, "Ready=True", "the node showed last: Ready on the old boot")
	require.Equal(t, []string{wftest.Compute + " not-back"}, s.Ejects, "ejected after the failure only")
	require.Equal(t, -1, wftest.Index(s.CallLog(), "Uncordon"), "a failed reimage leaves the server cordoned")
	require.Equal(t, model.BMMError, s.LedgerBMM(wftest.Compute).DetailedStatus)
}
