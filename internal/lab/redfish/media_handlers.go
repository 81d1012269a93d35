package redfish

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
)

var mediaProtocols = []string{"HTTP", "HTTPS", "NFS", "CIFS"}

// getSlot renders a slot. On profiles with StaleEject the first read after
// an eject still shows the ejected image (and clears the staleness).
func (b *BMC) getSlot(w http.ResponseWriter, _ *http.Request, s slotRef) {
	b.mu.Lock()
	d := &b.drives[s.Drive]
	m := *d
	if d.stale != nil {
		m = *d.stale
		d.stale = nil
	}
	out := b.slotDoc(s, m)
	b.mu.Unlock()
	writeJSON(w, http.StatusOK, out)
}

type insertBody struct {
	Image                string
	Inserted             *bool
	WriteProtected       *bool
	TransferProtocolType string
	UserName, Password   string // accepted, never stored or shown
}

func (in insertBody) check() *apiError {
	if in.TransferProtocolType != "" && !slices.Contains(mediaProtocols, in.TransferProtocolType) {
		return &apiError{http.StatusBadRequest, "ActionParameterValueNotInList",
			"The value " + in.TransferProtocolType + " for TransferProtocolType is not one of " + strings.Join(mediaProtocols, ", ") + "."}
	}
	return nil
}

func (in insertBody) flags() (inserted, protected bool) {
	inserted, protected = true, true
	if in.Inserted != nil {
		inserted = *in.Inserted
	}
	if in.WriteProtected != nil {
		protected = *in.WriteProtected
	}
	return inserted, protected
}

// postInsert mounts an image: at once, or after the hold of a slow profile
// (holdMedia); the answer is the profile's (a 202 carries an already
// completed task).
func (b *BMC) postInsert(w http.ResponseWriter, r *http.Request, s slotRef) {
	var body insertBody
	if e := decodeBody(r, &body); e != nil {
		writeError(w, e)
		return
	}
	if e := body.check(); e != nil {
		writeError(w, e)
		return
	}
	inserted, protected := body.flags()
	defer b.holdMedia()()
	b.mu.Lock()
	e := b.insertMediaLocked(s, body.Image, inserted, protected)
	var t *task
	var d doc
	if e == nil {
		t = b.completedTaskLocked("Insert virtual media", s.uri+insertAction, "The image is mounted.")
		d = taskDoc(t)
	}
	b.mu.Unlock()
	b.flush()
	if e != nil {
		writeError(w, e)
		return
	}
	b.reply(w, b.prof.InsertReply, t.id, d)
}

func (b *BMC) postEject(w http.ResponseWriter, _ *http.Request, s slotRef) {
	defer b.holdMedia()()
	b.mu.Lock()
	b.ejectMediaLocked(s)
	t := b.completedTaskLocked("Eject virtual media", s.uri+ejectAction, "The image is ejected.")
	d := taskDoc(t)
	b.mu.Unlock()
	b.flush()
	b.reply(w, b.prof.EjectReply, t.id, d)
}

// patchSlot mounts or unmounts by PATCH, on slots without the actions
// (Lenovo XCC): {"Image": url, "Inserted": true} mounts, {"Image": null}
// or {"Inserted": false} unmounts. Slots with actions refuse PATCH, as
// iDRAC and iLO do.
func (b *BMC) patchSlot(w http.ResponseWriter, r *http.Request, s slotRef) {
	if !s.NoInsertAction {
		w.Header().Set("Allow", "GET")
		writeError(w, &apiError{http.StatusMethodNotAllowed, "OperationNotAllowed",
			"PATCH is not allowed on " + s.uri + "; use the InsertMedia and EjectMedia actions."})
		return
	}
	var raw map[string]json.RawMessage
	if e := decodeBody(r, &raw); e != nil {
		writeError(w, e)
		return
	}
	var body insertBody
	json.Unmarshal(mustJSON(raw), &body)
	if e := body.check(); e != nil {
		writeError(w, e)
		return
	}
	inserted, protected := body.flags()
	imageNull := string(raw["Image"]) == "null"
	defer b.holdMedia()()
	b.mu.Lock()
	var e *apiError
	switch {
	case imageNull || (body.Inserted != nil && !inserted && body.Image == ""):
		b.ejectMediaLocked(s)
	default:
		e = b.insertMediaLocked(s, body.Image, inserted, protected)
	}
	out := b.slotDoc(s, b.drives[s.Drive])
	b.mu.Unlock()
	b.flush()
	if e != nil {
		writeError(w, e)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

func mustJSON(v any) []byte {
	raw, _ := json.Marshal(v)
	return raw
}
