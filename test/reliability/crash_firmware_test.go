package reliability

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/firmware"
	"github.com/rackroll/rackroll/internal/lab"
	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/test/e2e"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/converter"
)

// Issue 36: a worker SIGKILLed while a firmware update's task is Running
// resumes without a second update. A Replace with --apply-firmware of a
// Supermicro server below the baseline: its BIOS pushed with the host off
// (the power-off's waits heartbeat first, so the SDK would still batch the
// record of the request), then the BMC's own firmware. The worker dies
// once the server holds the BIOS request and its task monitor, with the
// task still Running; the retry, on a new worker, follows that task and
// sends nothing again. The replace completes, the server is at the
// baseline, and the lab's admin endpoint shows one request per component.
func TestCrashDuringFirmwareUpdate(t *testing.T) {
	t.Parallel()
	const target = "rack1-c1"
	timings := lab.FastTimings()
	timings.Firmware = model.Duration(4 * time.Second) // Running long enough to die in
	s := startSite(t, "../../examples/one-rack.yaml", siteOptions{Timings: timings, Mutate: func(inv *model.Inventory) {
		e2e.KeepComputes(inv, 2, nil)
		inv.Lab, _ = json.Marshal(map[string]any{"bmcProfiles": map[string]string{target: "supermicro"}})
		fw := model.Duration(40 * time.Second) // a 10 s heartbeat timeout: the retry comes soon
		inv.Timeouts = &model.TimeoutsSpec{Firmware: &fw}
	}})
	s.Inventory.Images.Firmware = map[string]firmware.Baseline{"4.1.2": {{Match: firmware.Match{Manufacturer: "Supermicro"},
		Components: []firmware.Component{
			{Name: "BIOS", Kind: "bios", Inventory: "^BIOS$", Minimum: "2.1", Image: s.Lab.FirmwareURL("bios-2.1.bin"),
				Apply: firmware.Apply{Method: firmware.MethodMultipartPush, HostOff: true}},
			{Name: "BMC", Kind: firmware.KindBMC, Inventory: "^BMC$", Minimum: "01.01.07", Image: s.Lab.FirmwareURL("bmc-01.01.07.bin"),
				Apply: firmware.Apply{Method: firmware.MethodMultipartPush}},
		}}}}
	s.Register()
	ctx := s.Context(10 * time.Minute)
	actID := api.ActionID(s.Cluster, target, 1)
	s.start(ctx, actID, api.BMMActionWorkflowName, api.ActionInput{Cluster: s.Cluster, BMM: target, Action: api.ActionReplace,
		ReplaceParams: api.ReplaceParams{SafeguardMode: api.SafeguardNone}, EvacuateTimeout: 15 * time.Second, ApplyFirmware: true})

	var held updateRecord
	s.Eventually(3*time.Minute, "the server holds the BIOS request and its task monitor", func() bool {
		held = pendingUpdate(ctx, s, actID)
		return held.FwTask != ""
	})
	s.proc.kill()
	const sc = "crash/firmware update"
	// The lab's install runs timings.Firmware from its acceptance.
	running := time.Since(accepted(s, target, "bios")) < time.Duration(timings.Firmware)
	check(t, sc+": killed with the BIOS task Running", "yes", yesNo(running), running)
	if err := s.proc.start(); err != nil {
		t.Fatal(err)
	}
	closed := s.waitClosed(ctx, actID)
	var res api.ActionResult
	err := s.Client.GetWorkflow(ctx, actID, "").Get(ctx, &res)
	if err != nil {
		t.Logf("replace of %s: %v", target, err)
	}
	checkBool(t, sc+": replace completed", closed == enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED && err == nil)

	byKind := adminUpdateRequests(t, s, target)
	for _, kind := range []string{"bios", "bmc"} {
		check(t, sc+": "+kind+" update requests", "1", fmt.Sprint(byKind[kind]), byKind[kind] == 1)
	}
	versions := s.Lab.Machine(target).BMC.FirmwareVersions()
	at := versions["bios"] == "2.1" && versions["bmc"] == "01.01.07"
	check(t, sc+": "+target+" at the baseline", "bios 2.1, bmc 01.01.07", fmt.Sprintf("bios %s, bmc %s", versions["bios"], versions["bmc"]), at)
	reimages := s.Lab.ReimageCounts()[target]
	check(t, sc+": "+target+" reinstalled once", "1", fmt.Sprint(reimages), reimages == 1)
	leases := len(s.State().Leases)
	check(t, sc+": leases left", "0", fmt.Sprint(leases), leases == 0)
}

// updateRecord is what ApplyFirmware's heartbeat says of its request.
type updateRecord struct {
	FwRequested bool
	FwTask      string
}

// pendingUpdate reads the heartbeat the server holds for the workflow's
// ApplyFirmware, if one is pending.
func pendingUpdate(ctx context.Context, s *site, id string) updateRecord {
	var r updateRecord
	d, err := s.Client.DescribeWorkflowExecution(ctx, id, "")
	if err != nil {
		return r
	}
	for _, pa := range d.PendingActivities {
		if pa.ActivityType.GetName() == "ApplyFirmware" && pa.HeartbeatDetails != nil {
			converter.GetDefaultDataConverter().FromPayloads(pa.HeartbeatDetails, &r)
		}
	}
	return r
}

// accepted is when the lab accepted bmm's update of kind (zero: never).
func accepted(s *site, bmm, kind string) time.Time {
	for _, e := range s.Lab.Events.Events() {
		if e.Kind == events.FirmwareUpdate && e.BMM == bmm && e.Detail["kind"] == kind {
			return e.Time
		}
	}
	return time.Time{}
}

// adminUpdateRequests reads bmm's update requests by kind through the
// lab's admin endpoint, as `starter lab status -o json` shows them.
func adminUpdateRequests(t *testing.T, s *site, bmm string) map[string]int {
	t.Helper()
	resp, err := http.Get(s.Lab.AdminURL + "/machines")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var ms []lab.MachineStatus
	if err := json.NewDecoder(resp.Body).Decode(&ms); err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if m.Name == bmm {
			return m.UpdateRequestsByKind
		}
	}
	t.Fatalf("%s is not in the lab's /machines", bmm)
	return nil
}
