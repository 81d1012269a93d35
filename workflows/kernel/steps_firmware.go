package kernel

import (
	"fmt"
	"time"

	"github.com/rackroll/rackroll/activities/bmc"
	"github.com/rackroll/rackroll/internal/firmware"
	"go.temporal.io/sdk/workflow"
)

// The firmware steps (docs/firmware.md): read what the BMC shows, and
// bring a server's components to the baseline inside a disruption the
// caller already holds (drained, leased). Neither records a change ID:
// each family puts its own use of them behind its GetVersion.

// ReadFirmware reads the System and its FirmwareInventory (a call: it
// answers at once, and only reads).
func (s *Steps) ReadFirmware() (firmware.Server, error) {
	var out firmware.Server
	err := workflow.ExecuteActivity(s.short("Read firmware of "+s.T.BMM), ba.ReadFirmware, s.T.Endpoint).Get(s.Ctx, &out)
	return out, err
}

// FirmwareTaskLimit and FirmwareAwayLimit are ApplyFirmware's own bounds
// (a task, a BMC away after its update) when the step has room for them.
const (
	FirmwareTaskLimit = 30 * time.Minute
	FirmwareAwayLimit = 10 * time.Minute
)

// ApplyFirmware applies comps one after another, in the order given
// (firmware.Order), all within l (the `firmware` row, or what is left of
// an action's limit if less): each component gets what is left, retries
// included, and its activity's own task and away bounds end a tenth
// before that, so a stuck task fails typed, naming the component, rather
// than by the step's clock. It stops at the first failure and returns
// what was done before it.
//
// Behind ChangeFirmwareOneReset, staged host firmware shares one host
// start (applyStagedOnce); a history from before it runs each component
// alone, as it did.
func (s *Steps) ApplyFirmware(comps []firmware.Component, l Limit) ([]bmc.ApplyFirmwareResult, error) {
	if workflow.GetVersion(s.Ctx, ChangeFirmwareOneReset, workflow.DefaultVersion, 1) != workflow.DefaultVersion {
		return s.applyStagedOnce(comps, l)
	}
	start := workflow.Now(s.Ctx)
	var done []bmc.ApplyFirmwareResult
	for _, c := range comps {
		left := l.Left(s.Ctx, start)
		own := max(left.D-left.D/10, time.Second)
		in := bmc.ApplyFirmwareInput{Endpoint: s.T.Endpoint, Component: c,
			TaskLimit: min(FirmwareTaskLimit, own), AwayLimit: min(FirmwareAwayLimit, own)}
		var r bmc.ApplyFirmwareResult
		err := s.run(left, fmt.Sprintf("Apply firmware %s %s on %s", c.Name, c.Minimum, s.T.BMM), &r, ba.ApplyFirmware, in)
		if err != nil {
			return done, overLimit(err, fmt.Sprintf("firmware %s of %s did not reach %s", c.Name, s.T.BMM, c.Minimum), l)
		}
		done = append(done, r)
	}
	return done, nil
}

// BMCUpdated reports whether done applied the BMC's own firmware (a
// component of comps of kind bmc): its update restarts the BMC, and some
// vendors' reset its accounts.
func BMCUpdated(comps []firmware.Component, done []bmc.ApplyFirmwareResult) bool {
	for _, r := range done {
		for _, c := range comps {
			if r.Applied && c.Name == r.Component && c.Kind == firmware.KindBMC {
				return true
			}
		}
	}
	return false
}

// FirmwareDone says in words what ApplyFirmware did, for a result or a
// ledger message.
func FirmwareDone(rs []bmc.ApplyFirmwareResult) []string {
	out := make([]string, 0, len(rs))
	for _, r := range rs {
		switch {
		case r.Staged && r.To == "":
			out = append(out, fmt.Sprintf("%s %s: update staged, not proven (a host reset may still install it)", r.Component, r.From))
			continue
		case r.Staged:
			out = append(out, fmt.Sprintf("%s %s → %s (staged, one host start)", r.Component, r.From, r.To))
			continue
		}
		if !r.Applied {
			out = append(out, r.Component+" already at "+r.To)
			continue
		}
		out = append(out, fmt.Sprintf("%s %s → %s", r.Component, r.From, r.To))
	}
	return out
}
