package redfish

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"

	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/lab/faults"
)

const registry = "Base.1.12."

func writeJSON(w http.ResponseWriter, status int, v any) {
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("OData-Version", "4.0")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// writeError answers with a Redfish error body (DSP0266 "Error responses").
// An id with a dot is a full MessageId of another registry (IDRAC.2.8.…).
func writeError(w http.ResponseWriter, e *apiError) {
	id := e.id
	if !strings.Contains(id, ".") {
		id = registry + id
	}
	writeJSON(w, e.status, doc{"error": doc{
		"code":    id,
		"message": e.message,
		"@Message.ExtendedInfo": []doc{{
			"@odata.type":     "#Message.v1_1_1.Message",
			"MessageId":       id,
			"Message":         e.message,
			"Severity":        "Critical",
			"MessageSeverity": "Critical",
		}},
	}})
}

func (b *BMC) getSystem(w http.ResponseWriter, r *http.Request) {
	b.mu.Lock()
	d, etag := b.systemLocked()
	b.mu.Unlock()
	w.Header().Set("ETag", etag)
	if m := r.Header.Get("If-None-Match"); m != "" && etagMatches(m, etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	writeJSON(w, http.StatusOK, d)
}

// etagMatches compares an If-Match / If-None-Match list with the current
// tag; weak and strong forms compare equal, as for PATCH on one resource.
func etagMatches(header, etag string) bool {
	etag = strings.TrimPrefix(etag, "W/")
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == etag {
			return true
		}
	}
	return false
}

var (
	overrideEnabled = []string{"Disabled", "Once", "Continuous"}
)

// patchSystem accepts the boot override (the only writable part). With
// If-Match the tag must be current (412 otherwise); faults.StaleETag answers 412
// to a fraction of PATCHes even when it is.
func (b *BMC) patchSystem(w http.ResponseWriter, r *http.Request) {
	var body map[string]json.RawMessage
	if e := decodeBody(r, &body); e != nil {
		writeError(w, e)
		return
	}
	var boot struct {
		BootSourceOverrideEnabled, BootSourceOverrideTarget, BootSourceOverrideMode *string
	}
	for k, v := range body {
		switch {
		case strings.HasPrefix(k, "@odata."):
		case k == "Boot":
			var fields map[string]json.RawMessage
			if json.Unmarshal(v, &fields) != nil || json.Unmarshal(v, &boot) != nil {
				writeError(w, &apiError{http.StatusBadRequest, "PropertyValueTypeError", "The value of Boot must be an object of string properties."})
				return
			}
			for f := range fields {
				if f != "BootSourceOverrideEnabled" && f != "BootSourceOverrideTarget" && f != "BootSourceOverrideMode" {
					writeError(w, &apiError{http.StatusBadRequest, "PropertyNotWritable", "The property Boot/" + f + " is read only or not supported by the lab."})
					return
				}
			}
		default:
			writeError(w, &apiError{http.StatusBadRequest, "PropertyNotWritable", "The property " + k + " is a read only property and cannot be assigned a value."})
			return
		}
	}
	if b.prof.NoBootMode && boot.BootSourceOverrideMode != nil {
		writeError(w, &apiError{http.StatusBadRequest, "PropertyUnknown", "The property Boot/BootSourceOverrideMode is not in the list of valid properties for the resource."})
		return
	}
	for _, c := range []struct {
		name    string
		value   *string
		allowed []string
	}{
		{"BootSourceOverrideEnabled", boot.BootSourceOverrideEnabled, overrideEnabled},
		{"BootSourceOverrideTarget", boot.BootSourceOverrideTarget, b.prof.BootTargets},
		{"BootSourceOverrideMode", boot.BootSourceOverrideMode, b.prof.bootModes()},
	} {
		if c.value != nil && !slices.Contains(c.allowed, *c.value) {
			writeError(w, &apiError{http.StatusBadRequest, "PropertyValueNotInList",
				"The value " + *c.value + " for " + c.name + " is not in the list of acceptable values: " + strings.Join(c.allowed, ", ") + "."})
			return
		}
	}

	b.mu.Lock()
	_, etag := b.systemLocked()
	if m := r.Header.Get("If-Match"); m != "" && (!etagMatches(m, etag) || b.faultHitLocked(faults.StaleETag)) {
		b.mu.Unlock()
		w.Header().Set("ETag", etag)
		writeError(w, &apiError{http.StatusPreconditionFailed, "PreconditionFailed",
			"The ETag supplied did not match the ETag required to change this resource; GET it again and retry."})
		return
	}
	before := b.override
	if boot.BootSourceOverrideEnabled != nil {
		b.override.enabled = *boot.BootSourceOverrideEnabled
		if b.prof.KeepsContinuous && b.override.enabled == "Once" {
			b.override.enabled = "Continuous" // accepted, kept as a lasting override
		}
	}
	if boot.BootSourceOverrideTarget != nil {
		b.override.target = *boot.BootSourceOverrideTarget
	}
	switch {
	case boot.BootSourceOverrideMode != nil:
		b.override.mode = *boot.BootSourceOverrideMode
	case boot.BootSourceOverrideTarget != nil:
		b.override.mode = b.prof.bootModeDefault() // Ironic: "Some BMCs reset it to default (BIOS) when changing the boot device"
	}
	if b.override != before {
		b.emitLocked(events.BootOverride, map[string]any{"enabled": b.override.enabled, "target": b.override.target, "mode": b.override.mode})
	}
	d, etag := b.systemLocked()
	b.mu.Unlock()
	b.flush()
	w.Header().Set("ETag", etag)
	writeJSON(w, http.StatusOK, d)
}

func (b *BMC) postReset(w http.ResponseWriter, r *http.Request) {
	var body struct{ ResetType string }
	if e := decodeBody(r, &body); e != nil {
		writeError(w, e)
		return
	}
	if body.ResetType == "" {
		writeError(w, &apiError{http.StatusBadRequest, "ActionParameterMissing", "The action ComputerSystem.Reset requires the parameter ResetType."})
		return
	}
	b.mu.Lock()
	t, e := b.resetLocked(body.ResetType)
	var d doc
	if t != nil {
		d = taskDoc(t)
	}
	b.mu.Unlock()
	b.flush()
	switch {
	case e != nil:
		writeError(w, e)
	case t == nil:
		w.WriteHeader(http.StatusNoContent)
	default:
		b.reply(w, b.prof.ResetReply, t.id, d)
	}
}

// reply answers an accepted action the profile's way: 204, 200 with a
// Base.Success message, or 202 with the task monitor.
func (b *BMC) reply(w http.ResponseWriter, status int, taskID string, d doc) {
	switch status {
	case http.StatusAccepted:
		accepted(w, taskID, d)
	case http.StatusOK:
		writeJSON(w, http.StatusOK, doc{"@Message.ExtendedInfo": []doc{{
			"MessageId": registry + "Success", "Message": "The request completed successfully.", "Severity": "OK", "MessageSeverity": "OK",
		}}})
	default:
		w.WriteHeader(http.StatusNoContent)
	}
}

// accepted answers 202 with the task monitor (DSP0266 "Asynchronous
// operations").
func accepted(w http.ResponseWriter, id string, d doc) {
	w.Header().Set("Location", tasksPath+"/"+id)
	writeJSON(w, http.StatusAccepted, d)
}

func (b *BMC) getTask(w http.ResponseWriter, id string) {
	b.mu.Lock()
	t := b.tasks.byID[id]
	var d doc
	running := false
	if t != nil {
		d, running = taskDoc(t), !t.done()
	}
	b.mu.Unlock()
	switch {
	case t == nil:
		writeError(w, &apiError{http.StatusNotFound, "ResourceNotFound", "The task " + id + " does not exist (or was forgotten)."})
	case running:
		w.Header().Set("Location", tasksPath+"/"+id)
		writeJSON(w, http.StatusAccepted, d)
	default:
		writeJSON(w, http.StatusOK, d)
	}
}

func (b *BMC) tasksLocked() doc {
	members := make([]string, 0, len(b.tasks.order))
	for _, id := range b.tasks.order {
		members = append(members, tasksPath+"/"+id)
	}
	return collection(tasksPath, "TaskCollection", "Task Collection", members...)
}
