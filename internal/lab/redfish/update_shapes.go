package redfish

import (
	"net/http"
	"slices"
	"strings"
)

// Update shapes beyond DMTF's defaults, each as a vendor has it (the
// profiles in profiles_updates.go; docs/lab-bmc-profiles.md cites the sources):
//
//   - sushy-tools (OpenStack's Redfish emulator) refuses a SimpleUpdate
//     without Targets, "Missing ImageURI and/or Targets.", refuses the
//     Manager as a target, and answers 204 with the task in Location
//     (sushy_tools/emulator/resources/update_service.py). Redfish says
//     where a BMC declares what an action requires: its @Redfish.ActionInfo
//     (DSP0268 ActionInfo; OpenBMC's bmcweb serves SimpleUpdateActionInfo).
//   - Supermicro X12 takes a push naming Targets with
//     @Redfish.OperationApplyTime OnStartUpdateRequest, verifies it ("BIOS
//     Verify" task), and installs it on UpdateService.StartUpdate; a BIOS
//     install then says Scheduled until the host power-cycles (bmclib's
//     providers/supermicro/x12_firmware.go, docs/x12.md and its
//     tasks_1_scheduled.json fixture, mapped there to power-cycle-host).

// UpdateShape is how a BMC wants its updates asked for and how it
// announces their tasks.
type UpdateShape struct {
	// TargetsRequired: SimpleUpdate has an ActionInfo whose Targets is
	// Required and which declares no TransferProtocol. Without Targets the
	// request is refused 400 "Missing ImageURI and/or Targets.", with
	// TransferProtocol 400 ActionParameterNotSupported, and a Manager
	// target 400 "Manager is not currently a supported Target."
	// (sushy-tools' words).
	TargetsRequired bool
	// Reply204: an accepted update is answered 204 No Content with the
	// task's URI in Location (sushy-tools).
	Reply204 bool
	// StartUpdate: the push lists OnStartUpdateRequest as its only apply
	// time, must name Targets, and holds every image, once verified, until
	// UpdateService.StartUpdate (Supermicro X12); the BMC is busy
	// meanwhile.
	StartUpdate bool
	// StagedState is the TaskState of an update staged until the next host
	// reset ("": Pending, as iDRAC's job queue).
	StagedState string
}

// URIs of the shapes' resources.
const (
	simpleUpdateInfoPath = updatePath + "/SimpleUpdateActionInfo"
	startUpdatePath      = updatePath + "/Actions/UpdateService.StartUpdate"
)

func (u UpdateShape) stagedState() string {
	if u.StagedState == "" {
		return taskPending
	}
	return u.StagedState
}

// describe adds to the UpdateService what the shape declares.
func (u UpdateShape) describe(d doc) {
	actions, _ := d["Actions"].(doc)
	if u.TargetsRequired && actions != nil {
		if simple, ok := actions["#UpdateService.SimpleUpdate"].(doc); ok {
			simple["@Redfish.ActionInfo"] = simpleUpdateInfoPath
			delete(simple, "TransferProtocol@Redfish.AllowableValues") // the ActionInfo has none
		}
	}
	if u.StartUpdate {
		if actions == nil {
			actions = doc{}
			d["Actions"] = actions
		}
		actions["#UpdateService.StartUpdate"] = doc{"target": startUpdatePath}
		d["MultipartHttpPushUri@Redfish.OperationApplyTimeSupport"] = doc{
			"@odata.type": "#Settings.v1_3_5.OperationApplyTimeSupport", "SupportedValues": []string{"OnStartUpdateRequest"}}
	}
}

// simpleUpdateInfo is the SimpleUpdate ActionInfo of a TargetsRequired
// BMC, in bmcweb's shape.
func simpleUpdateInfo() doc {
	return doc{"@odata.id": simpleUpdateInfoPath, "@odata.type": "#ActionInfo.v1_3_0.ActionInfo",
		"Id": "SimpleUpdateActionInfo", "Name": "Simple Update Action Info",
		"Parameters": []doc{
			{"Name": "ImageURI", "Required": true, "DataType": "String"},
			{"Name": "Targets", "Required": true, "DataType": "StringArray"},
		}}
}

// reply answers an accepted update: 202 with the task monitor, or 204
// with the task in Location.
func (u UpdateShape) reply(w http.ResponseWriter, taskID string, d doc) {
	if !u.Reply204 {
		accepted(w, taskID, d)
		return
	}
	w.Header().Set("Location", tasksPath+"/"+taskID)
	w.WriteHeader(http.StatusNoContent)
}

// checkUpdateShapeLocked refuses what the shape does not take, before a
// task exists. part is what the package installs (nil: unreadable).
func (b *BMC) checkUpdateShapeLocked(ask updateAsk, part *fwPart) *apiError {
	u := b.prof.Updates
	push := ask.via == "MultipartPush"
	switch {
	case u.TargetsRequired && !push && ask.protocol != "":
		return &apiError{http.StatusBadRequest, "ActionParameterNotSupported",
			"The parameter TransferProtocol for the action UpdateService.SimpleUpdate is not supported on the target resource."}
	case u.TargetsRequired && !push && len(ask.targets) == 0:
		return &apiError{http.StatusBadRequest, "GeneralError", "Missing ImageURI and/or Targets."}
	case u.TargetsRequired && !push && slices.ContainsFunc(ask.targets, func(t string) bool { return strings.Contains(t, "Manager") }):
		return &apiError{http.StatusBadRequest, "GeneralError", "Manager is not currently a supported Target."}
	case u.StartUpdate && push && len(ask.targets) == 0:
		return &apiError{http.StatusBadRequest, "ActionParameterMissing",
			"The UpdateParameters must name Targets: the Manager for the BMC's firmware, the System or its Bios for the BIOS."}
	}
	if (u.TargetsRequired && !push || u.StartUpdate && push) && part != nil && !slices.ContainsFunc(ask.targets, b.targetFor(part)) {
		return &apiError{http.StatusBadRequest, "ActionParameterValueNotInList",
			"The value " + strings.Join(ask.targets, ", ") + " for Targets does not name what the package " + pathBase(ask.image) + " updates."}
	}
	return nil
}

// targetFor says whether a Targets URI names the part: what it runs on,
// or for host firmware the System (and its Bios).
func (b *BMC) targetFor(part *fwPart) func(string) bool {
	return func(t string) bool {
		t = strings.TrimSuffix(t, "/")
		return t == part.related || part.kind != KindBMC && (t == b.paths.system || t == b.paths.system+"/Bios")
	}
}

// holdLocked keeps a pushed image until StartUpdate: its task verifies
// the package, then says it waits. The service is busy meanwhile.
func (b *BMC) holdLocked(j *fwJob) {
	j.held = true
	j.task.name = strings.ToUpper(j.part.kind) + " Verify"
	b.fwRunning = j
	b.afterLocked(b.cfg.Timings.Firmware/4, func() {
		j.verified = true
		j.task.finish(taskCompleted, "The package was verified; it is applied on UpdateService.StartUpdate.")
	})
}

// servesUpdateShape: p is a resource of the profile's update shape.
func (b *BMC) servesUpdateShape(p string) bool {
	u := b.prof.Updates
	return p == simpleUpdateInfoPath && u.TargetsRequired || p == startUpdatePath && u.StartUpdate
}

func (b *BMC) routeUpdateShape(w http.ResponseWriter, r *http.Request, p string) {
	if p == simpleUpdateInfoPath {
		b.get(w, r, simpleUpdateInfo)
		return
	}
	dispatch(w, r, handlers{http.MethodPost: func() { b.postStartUpdate(w) }})
}

// postStartUpdate applies the held image: the BMC's own firmware installs
// now, host firmware is staged until the next host reset.
func (b *BMC) postStartUpdate(w http.ResponseWriter) {
	b.mu.Lock()
	j := b.fwRunning
	var e *apiError
	switch {
	case j == nil || !j.held:
		e = &apiError{http.StatusBadRequest, "ActionNotSupported", "No firmware package waits for UpdateService.StartUpdate; push one first."}
	case !j.verified:
		e = &apiError{http.StatusServiceUnavailable, "ServiceTemporarilyUnavailable", "The package is still being verified (task " + j.task.id + "); start the update once it completes."}
	}
	if e != nil {
		b.mu.Unlock()
		if e.status == http.StatusServiceUnavailable {
			w.Header().Set("Retry-After", "5")
		}
		writeError(w, e)
		return
	}
	b.startUpdates++
	j.held, b.fwRunning = false, nil
	j.task = b.tasks.add(strings.ToUpper(j.part.kind)+" Update", startUpdatePath, nil)
	if b.stagedLocked(j) {
		b.stageLocked(j)
	} else {
		b.installLocked(j, false)
	}
	b.changedLocked()
	t, d := j.task, taskDoc(j.task)
	b.mu.Unlock()
	b.flush()
	b.prof.Updates.reply(w, t.id, d)
}

// StartUpdates counts the StartUpdate requests that started an install
// (a second one finds nothing to start and is refused): tests check a
// resumed worker started each update once.
func (b *BMC) StartUpdates() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.startUpdates
}
