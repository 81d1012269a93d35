package redfish

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sushy-tools' shape: the UpdateService links a FirmwareInventory that is
// not there, the versions show in the System and the Manager, and a
// SimpleUpdate changes them there.
func TestNoInventoryShowsVersionsInTheSystemAndTheManager(t *testing.T) {
	r := fwRig(t, "noinventory")
	us := r.do(http.MethodGet, updatePath, nil)
	require.Equal(t, http.StatusOK, us.code)
	assert.Equal(t, firmwarePath, us.body["FirmwareInventory"].(map[string]any)["@odata.id"], "linked")
	assert.Equal(t, http.StatusNotFound, r.do(http.MethodGet, firmwarePath, nil).code, "and not served")
	assert.Equal(t, http.StatusNotFound, r.do(http.MethodGet, firmwarePath+"/BIOS", nil).code)
	assert.Equal(t, "1.0.0", r.system()["BiosVersion"])
	assert.Equal(t, "1.00", r.do(http.MethodGet, r.b.paths.manager, nil).body["FirmwareVersion"])

	rep := r.simpleUpdate("http://fw.example/bios-1.1.0.bin", "")
	require.Equal(t, http.StatusAccepted, rep.code)
	r.clk.Advance(fwTime)
	require.Equal(t, http.StatusNoContent, r.reset("ForceRestart").code, "the dmtf shape's answer")
	r.clk.Advance(2 * testTimings.PowerTransition)
	assert.Equal(t, "1.1.0", r.system()["BiosVersion"])
}
