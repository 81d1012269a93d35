package reliability

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/firmware"
	"github.com/rackroll/rackroll/internal/invariants"
	"github.com/rackroll/rackroll/internal/lab"
	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/test/e2e"
	enumspb "go.temporal.io/api/enums/v1"
)

// A firmware point is a moment of one BIOS update at which the worker
// dies, told from the lab's event log (what the BMC saw), so it is the
// same moment in a replace and in an upgrade. The BIOS is Supermicro's:
// pushed with the host off, installed, active at the next host start.
type firmwarePoint struct {
	name string
	// at reports whether bmm's BIOS update has reached the point: evs are
	// the events since the run began, fw the lab's install time.
	at func(s *site, evs []events.Event, bmm string, fw time.Duration) bool
}

var firmwarePoints = []firmwarePoint{
	// The host powering off for the push (a 2 s transition), no request yet.
	{"before the request", func(s *site, evs []events.Event, bmm string, _ time.Duration) bool {
		return s.Lab.Machine(bmm).BMC.State().PoweringOff && find(evs, bmm, events.FirmwareUpdate) < 0
	}},
	// The BMC accepted the push: its task monitor may not be recorded yet.
	{"after the request", func(_ *site, evs []events.Event, bmm string, _ time.Duration) bool {
		return find(evs, bmm, events.FirmwareUpdate) >= 0
	}},
	// Half-way through the install: the task monitor is recorded.
	{"while the task runs", func(_ *site, evs []events.Event, bmm string, fw time.Duration) bool {
		i := find(evs, bmm, events.FirmwareUpdate)
		return i >= 0 && time.Since(evs[i].Time) > fw/2
	}},
	// The host powering on to read the installed BIOS (a 2 s transition).
	{"during the host start", func(s *site, evs []events.Event, bmm string, _ time.Duration) bool {
		return s.Lab.Machine(bmm).BMC.State().PoweringOn && find(evs, bmm, events.FirmwareUpdate) >= 0
	}},
}

// find is the index of bmm's first event of kind, or -1.
func find(evs []events.Event, bmm, kind string) int {
	return slices.IndexFunc(evs, func(e events.Event) bool { return e.BMM == bmm && e.Kind == kind })
}

// Issue 48: a worker SIGKILLed at each point of a firmware step, inside a
// replace (--apply-firmware) and inside an upgrade (a re-run at the
// version the site runs, for the firmware alone), never sends a second
// update request: the lab counts one, and the server ends at the baseline.
func TestCrashAtEachFirmwarePoint(t *testing.T) {
	t.Parallel()
	for _, inside := range []string{"replace", "upgrade"} {
		for _, p := range firmwarePoints {
			t.Run(inside+"/"+p.name, func(t *testing.T) {
				t.Parallel()
				crashAtFirmwarePoint(t, inside, p)
			})
		}
	}
}

func crashAtFirmwarePoint(t *testing.T, inside string, p firmwarePoint) {
	const target, version = "rack1-c1", "4.1.2"
	timings := lab.FastTimings()
	timings.Firmware = model.Duration(4 * time.Second)
	timings.PowerTransition = model.Duration(2 * time.Second) // power waits long enough to die in
	s := startSite(t, "../../examples/one-rack.yaml", siteOptions{Timings: timings, Mutate: func(inv *model.Inventory) {
		e2e.KeepComputes(inv, 2, nil)
		inv.Lab, _ = json.Marshal(map[string]any{"bmcProfiles": map[string]string{target: "supermicro"}})
		fw := model.Duration(40 * time.Second) // a 10 s heartbeat timeout: the retry comes soon
		inv.Timeouts = &model.TimeoutsSpec{Firmware: &fw}
	}})
	s.Inventory.Images.Firmware = map[string]firmware.Baseline{version: {{Match: firmware.Match{Manufacturer: "Supermicro"},
		Components: []firmware.Component{{Name: "BIOS", Kind: "bios", Inventory: "^BIOS$", Minimum: "2.1",
			Image: s.Lab.FirmwareURL("bios-2.1.bin"), Apply: firmware.Apply{Method: firmware.MethodMultipartPush, HostOff: true}}}}}}
	s.Register()
	ctx := s.Context(10 * time.Minute)
	seen := len(s.Lab.Events.Events())
	id := api.ActionID(s.Cluster, target, 1)
	if inside == "upgrade" {
		id = api.UpgradeID(s.Cluster)
		in := upgradeInput(s, model.UpdateStrategy{})
		in.TargetVersion = version // the version it runs: the run is for the firmware
		s.start(ctx, id, api.RuntimeUpgradeWorkflowName, in)
	} else {
		s.start(ctx, id, api.BMMActionWorkflowName, api.ActionInput{Cluster: s.Cluster, BMM: target, Action: api.ActionReplace,
			ReplaceParams: api.ReplaceParams{SafeguardMode: api.SafeguardNone}, EvacuateTimeout: 15 * time.Second, ApplyFirmware: true})
	}
	fw := time.Duration(timings.Firmware)
	s.Eventually(3*time.Minute, target+"'s BIOS update "+p.name, func() bool { return p.at(s, s.Lab.Events.Events()[seen:], target, fw) })
	s.proc.kill()
	killed := time.Now()
	sc := "crash/firmware " + p.name + " (" + inside + ")"
	evs := s.Lab.Events.Events()[seen:]
	switch i := find(evs, target, events.FirmwareUpdate); {
	case p.name == "before the request":
		before := i < 0 || evs[i].Time.After(killed)
		check(t, sc+": killed before the BMC had the request", "yes", yesNo(before), before)
	case p.name != "during the host start":
		running := i >= 0 && killed.Sub(evs[i].Time) < fw
		check(t, sc+": killed with the BIOS task Running", "yes", yesNo(running), running)
	}
	if err := s.proc.start(); err != nil {
		t.Fatal(err)
	}
	closed := s.waitClosed(ctx, id)
	if inside == "upgrade" {
		st, ok := upgradeOutcome(t, s, ctx)
		checkBool(t, sc+": upgrade completed", ok && closed == enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED)
		checkInvariants(t, s, sc, invariants.WithUpgrade(siteOf(t, s), st))
		check(t, sc+": reimages (the OS is at the target)", "0", fmt.Sprint(reimages(s)), reimages(s) == 0)
	} else {
		var res api.ActionResult
		err := s.Client.GetWorkflow(ctx, id, "").Get(ctx, &res)
		if err != nil {
			t.Logf("replace of %s: %v", target, err)
		}
		checkBool(t, sc+": replace completed", closed == enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED && err == nil)
		check(t, sc+": "+target+" reinstalled", "1", fmt.Sprint(s.Lab.ReimageCounts()[target]), s.Lab.ReimageCounts()[target] == 1)
	}
	requests := adminUpdateRequests(t, s, target)["bios"]
	check(t, sc+": BIOS update requests", "1", fmt.Sprint(requests), requests == 1)
	bios := s.Lab.Machine(target).BMC.FirmwareVersions()["bios"]
	check(t, sc+": "+target+"'s BIOS", "2.1", bios, bios == "2.1")
	leases := len(s.State().Leases)
	check(t, sc+": leases left", "0", fmt.Sprint(leases), leases == 0)
}
