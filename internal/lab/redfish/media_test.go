package redfish

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// XCC has no InsertMedia action on its remote slots: the image is mounted
// and unmounted by PATCH; its RDOC upload slots refuse a URL.
func TestXCCMountsByPatch(t *testing.T) {
	r := newRig(t, profile("xcc"))
	ext := r.b.paths.mgrMedia + "/EXT1"
	slot := r.do(http.MethodGet, ext, nil)
	assert.Nil(t, slot.body["Actions"], "no InsertMedia action")
	rep := r.do(http.MethodPost, ext+insertAction, map[string]any{"Image": installer})
	assert.Equal(t, http.StatusNotFound, rep.code)
	assert.Equal(t, "Base.1.12.ActionNotSupported", field(rep.body, "error", "code"))

	rep = r.do(http.MethodPatch, r.b.paths.mgrMedia+"/RDOC1", map[string]any{"Image": installer, "Inserted": true})
	assert.Equal(t, http.StatusBadRequest, rep.code, "an upload slot takes no URL")

	rep = r.do(http.MethodPatch, ext, map[string]any{"Image": installer, "Inserted": true, "WriteProtected": true})
	require.Equal(t, http.StatusOK, rep.code, "%v", rep.body)
	assert.Equal(t, true, rep.body["Inserted"])
	assert.Equal(t, installer, rep.body["Image"])

	rep = r.do(http.MethodPatch, ext, map[string]any{"Image": nil, "Inserted": false})
	require.Equal(t, http.StatusOK, rep.code)
	assert.Equal(t, false, rep.body["Inserted"])
	assert.Nil(t, rep.body["Image"])
}

// iDRAC reports the ejected image as Inserted on the first read after the
// eject; the next read is current.
func TestIdracStaleInsertedAfterEject(t *testing.T) {
	r := newRig(t, profile("idrac9"))
	slot := r.b.paths.sysMedia + "/1"
	require.Equal(t, http.StatusNoContent, r.do(http.MethodPost, slot+insertAction, map[string]any{"Image": installer}).code)
	require.Equal(t, http.StatusNoContent, r.do(http.MethodPost, slot+ejectAction, nil).code)
	first := r.do(http.MethodGet, slot, nil)
	assert.Equal(t, true, first.body["Inserted"], "stale")
	second := r.do(http.MethodGet, slot, nil)
	assert.Equal(t, false, second.body["Inserted"])
	assert.Nil(t, second.body["Image"])
	assert.Equal(t, http.StatusNoContent, r.do(http.MethodPost, slot+insertAction, map[string]any{"Image": installer}).code,
		"the drive itself is empty: a new insert is accepted")
}

// iLO's slot 1 is Floppy/USBStick: an ISO needs slot 2. Its actions answer
// 200 with a Base.Success message.
func TestIlo5SlotsAndReplies(t *testing.T) {
	r := newRig(t, profile("ilo5"))
	rep := r.do(http.MethodPost, r.b.paths.mgrMedia+"/1"+insertAction, map[string]any{"Image": installer})
	assert.Equal(t, http.StatusBadRequest, rep.code)
	assert.Contains(t, field(rep.body, "error", "message"), "needs a CD or DVD slot")

	rep = r.do(http.MethodPost, r.b.paths.mgrMedia+"/2"+insertAction, map[string]any{"Image": installer})
	assert.Equal(t, http.StatusOK, rep.code)
	assert.NotEmpty(t, rep.body["@Message.ExtendedInfo"])
	rep = r.reset("ForceOff")
	assert.Equal(t, http.StatusOK, rep.code)
	assert.Empty(t, rep.header.Get("Location"), "no task monitor")
}

// PATCH is refused on slots that have actions; iDRAC answers 204 to its
// actions; Supermicro's InsertMedia is a 202 with a task.
func TestMediaReplies(t *testing.T) {
	r := newRig(t, profile("idrac9"))
	rep := r.do(http.MethodPatch, r.b.paths.sysMedia+"/1", map[string]any{"Image": installer})
	assert.Equal(t, http.StatusMethodNotAllowed, rep.code)
	assert.Equal(t, http.StatusNoContent, r.reset("ForceOff").code)

	s := newRig(t, profile("supermicro"))
	rep = s.do(http.MethodPost, s.b.paths.mgrMedia+"/CD1"+insertAction, map[string]any{"Image": installer})
	require.Equal(t, http.StatusAccepted, rep.code)
	code, state := s.taskState(rep.header.Get("Location"))
	assert.Equal(t, []any{200, "Completed"}, []any{code, state})
	assert.Equal(t, http.StatusOK, s.reset("GracefulShutdown").code, "accepted though only the malformed value is advertised")
}
