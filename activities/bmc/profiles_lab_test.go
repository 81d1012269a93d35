package bmc

import (
	"testing"

	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/lab/redfish"
	"github.com/rackroll/rackroll/internal/lab/redfish/redfishtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Under every vendor profile the activities power-cycle, reimage (returning
// once the reset took effect, the installer left in) and eject, choosing
// the virtual CD and boot target by what the BMC offers, and leave no
// session open behind them.
func TestLabEveryProfile(t *testing.T) {
	for _, name := range redfish.ProfileNames() {
		if name == "nomedia" {
			continue // no virtual media: site check's negative case (probe_test.go)
		}
		t.Run(name, func(t *testing.T) {
			l := newLab(t, redfishtest.Profile(name))
			_, err := l.env.ExecuteActivity(l.a.PowerOff, PowerOffInput{Endpoint: l.ep, SkipShutdown: true})
			require.NoError(t, err)
			assert.Equal(t, "Off", l.bmc.State().Power)
			_, err = l.env.ExecuteActivity(l.a.PowerOn, l.ep)
			require.NoError(t, err)

			res, err := l.reimage("4.2.0")
			require.NoError(t, err)
			assert.True(t, res.Reimaged)
			assert.NotEmpty(t, res.LastState, "it says what the BMC showed when the reset took effect")
			s := l.settled("4.2.0")
			assert.Equal(t, 1, s.ReimageCount)
			assert.Zero(t, l.count(events.MediaEject), "the installer stays in until the caller ejects it")
			assert.Zero(t, l.log.Count(events.ReimageFailed, redfishtest.BMM))
			require.NoError(t, l.eject("4.2.0"))
			assert.Equal(t, 1, l.count(events.MediaEject))

			assert.Equal(t, 0, l.bmc.Sessions(), "every session was logged out")
			assert.Equal(t, l.count(events.SessionCreate), l.count(events.SessionDelete))
		})
	}
}
