package redfish_test

import (
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/lab/redfish"
	"github.com/rackroll/rackroll/internal/lab/redfish/redfishtest"
	"github.com/stmcginnis/gofish"
	"github.com/stmcginnis/gofish/schemas"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHTTPSVerifiedWithTheLabCAOnly(t *testing.T) {
	srv := redfishtest.StartTLS(t)
	require.Regexp(t, `^https://127\.0\.0\.1:\d+$`, srv.URL)
	c, err := gofish.Connect(gofish.ClientConfig{Endpoint: srv.URL, Username: redfishtest.Username, Password: redfishtest.Password,
		HTTPClient: redfishtest.TrustingOnly(t, srv.CAFile)})
	require.NoError(t, err)
	systems, err := c.Service.Systems()
	require.NoError(t, err)
	assert.Len(t, systems, 1)
	c.Logout()

	_, err = gofish.Connect(gofish.ClientConfig{Endpoint: srv.URL, Username: redfishtest.Username, Password: redfishtest.Password})
	require.Error(t, err, "the system roots do not trust the lab's CA")
	assert.Contains(t, err.Error(), "certificate")
	other := redfishtest.StartTLS(t)
	_, err = gofish.Connect(gofish.ClientConfig{Endpoint: srv.URL, Username: redfishtest.Username, Password: redfishtest.Password,
		HTTPClient: redfishtest.TrustingOnly(t, other.CAFile)})
	require.Error(t, err, "another lab's CA is not this one")
	assert.Zero(t, srv.BMC.Sessions(), "the logout closed the session; the refused ones never opened one")
}

// A client that chooses by capability reimages under every profile over
// HTTPS with a session, and leaks no session.
func TestGofishReimageUnderEveryProfile(t *testing.T) {
	for _, name := range redfish.ProfileNames() {
		t.Run(name, func(t *testing.T) {
			srv := redfishtest.StartTLS(t, redfishtest.Profile(name))
			c, err := gofish.Connect(gofish.ClientConfig{Endpoint: srv.URL, Username: redfishtest.Username, Password: redfishtest.Password,
				HTTPClient: redfishtest.TrustingOnly(t, srv.CAFile)})
			require.NoError(t, err)
			sys := system(t, c)
			cd := virtualCD(t, c, sys)
			if name == "nomedia" {
				require.Nil(t, cd, "no virtual media to find")
				c.Logout()
				assert.Zero(t, srv.BMC.Sessions())
				return
			}
			require.NotNil(t, cd, "a virtual CD")
			image := "http://images.lab/rackroll-4.2.0.iso"
			if cd.SupportsMediaInsert {
				_, err = cd.InsertMedia(&schemas.VirtualMediaInsertMediaParameters{Image: image, Inserted: gofish.ToRef(true), WriteProtected: gofish.ToRef(true)})
			} else {
				var resp *http.Response
				resp, err = c.Patch(cd.ODataID, map[string]any{"Image": image, "Inserted": true, "WriteProtected": true})
				if err == nil {
					resp.Body.Close()
				}
			}
			require.NoError(t, err)
			targets := sys.Boot.AllowableBootSourceOverrideTargetValues
			target := schemas.CdBootSource
			if slices.Contains(targets, schemas.BootSource("UsbCd")) {
				target = schemas.BootSource("UsbCd")
			}
			boot := schemas.Boot{BootSourceOverrideEnabled: schemas.OnceBootSourceOverrideEnabled, BootSourceOverrideTarget: target}
			if sys.Boot.BootSourceOverrideMode != "" { // the installer is UEFI-only (bootmode-legacy)
				boot.BootSourceOverrideMode = schemas.UEFIBootSourceOverrideMode
			}
			require.NoError(t, sys.SetBoot(&boot))
			_, err = sys.Reset(schemas.ForceRestartResetType)
			require.NoError(t, err)
			require.Eventually(t, func() bool {
				s := srv.BMC.State()
				return s.OSRunning && s.RuntimeVersion == "4.2.0"
			}, 10*time.Second, time.Millisecond, "%s: reimaged to 4.2.0", name)
			c.Logout()
			assert.Equal(t, 1, srv.Log.Count(events.SessionCreate, redfishtest.BMM))
			assert.Equal(t, 1, srv.Log.Count(events.SessionDelete, redfishtest.BMM), "logged out")
			assert.Zero(t, srv.BMC.Sessions())
		})
	}
}

// virtualCD is the first member, under the System then the Manager, whose
// MediaTypes include CD and that is no upload slot, preferring the ids the
// vendors boot from, in this order (iDRAC10 boots only 1; iLO's CD is 2).
func virtualCD(t *testing.T, c *gofish.APIClient, sys *schemas.ComputerSystem) *schemas.VirtualMedia {
	t.Helper()
	var all []*schemas.VirtualMedia
	if sm, err := sys.VirtualMedia(); err == nil {
		all = append(all, sm...)
	}
	managers, err := c.Service.Managers()
	require.NoError(t, err)
	if mm, err := managers[0].VirtualMedia(); err == nil {
		all = append(all, mm...)
	}
	preferred := []string{"1", "CD", "CD1", "2"}
	rank := func(m *schemas.VirtualMedia) int {
		if i := slices.Index(preferred, m.ID); i >= 0 {
			return i
		}
		return len(preferred)
	}
	var best *schemas.VirtualMedia
	for _, m := range all {
		if !slices.Contains(m.MediaTypes, schemas.CDVirtualMediaType) || m.TransferMethod == schemas.UploadTransferMethod {
			continue
		}
		if best == nil || rank(m) < rank(best) {
			best = m
		}
	}
	return best
}
