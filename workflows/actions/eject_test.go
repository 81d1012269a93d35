package actions

import (
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/require"
)

// The eject after a reimage runs within the table's media limit (10m by
// default), not a one-minute activity: a slow BMC (20–40 s per media
// action, a wait for a session) does not fail a reimage that succeeded;
// a BMC that never ejects fails it at that limit, naming it.
func TestReimageEjectWithinTheMediaLimit(t *testing.T) {
	t.Run("a slow eject", func(t *testing.T) {
		s := wftest.NewActionSite(t)
		s.Delay["EjectMedia"] = 3 * time.Minute
		res, err := s.RunAction(t, wftest.Act(api.ActionReimage, wftest.Compute))
		require.NoError(t, err)
		require.Equal(t, "4.1.2", res.RuntimeVersion, res.Message)
		require.Equal(t, []string{wftest.Compute + " back"}, s.Ejects)
	})
	t.Run("an eject that never ends", func(t *testing.T) {
		s := wftest.NewActionSite(t)
		s.Delay["EjectMedia"] = 2 * time.Hour
		_, err := s.RunAction(t, wftest.Act(api.ActionReimage, wftest.Compute))
		require.ErrorContains(t, err, "ejecting the installer failed: the BMC of rack1-c1 did not eject the installer within 10m0s (timeouts.media)")
	})
}
