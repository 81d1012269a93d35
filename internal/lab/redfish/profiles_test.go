package redfish

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func profile(name string) func(*Config) { return func(c *Config) { c.Profile = name } }

// members lists a collection's member URIs in the order served.
func members(d map[string]any) []string {
	var out []string
	for _, m := range d["Members"].([]any) {
		out = append(out, m.(map[string]any)["@odata.id"].(string))
	}
	return out
}

func strs(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

// What each profile shows: where the media lives, member order and ids,
// media types, allowable values, ETag shape, BootProgress, OS resources.
func TestProfileShapes(t *testing.T) {
	for _, tc := range []struct {
		profile      string
		system       string
		mediaLink    string   // the System's VirtualMedia link ("" none)
		media        []string // the collections' members in order
		cdTypes      []string // MediaTypes of the last member
		targetsHas   string
		targetsLacks string
		resetHas     string
		weak         bool
		bootProgress any // nil: absent
		helpful      bool
	}{
		{"idrac9", "/redfish/v1/Systems/System.Embedded.1", "/redfish/v1/Systems/System.Embedded.1/VirtualMedia",
			[]string{"/redfish/v1/Systems/System.Embedded.1/VirtualMedia/2", "/redfish/v1/Systems/System.Embedded.1/VirtualMedia/1"},
			[]string{"CD", "DVD", "USBStick"}, "Cd", "UsbCd", "GracefulShutdown", true, nil, false},
		{"idrac10", "/redfish/v1/Systems/System.Embedded.1", "/redfish/v1/Systems/System.Embedded.1/VirtualMedia",
			[]string{"/redfish/v1/Systems/System.Embedded.1/VirtualMedia/2", "/redfish/v1/Systems/System.Embedded.1/VirtualMedia/1"},
			[]string{"CD", "DVD", "USBStick"}, "Cd", "UsbCd", "GracefulShutdown", true, nil, false},
		{"ilo5", "/redfish/v1/Systems/1", "",
			[]string{"/redfish/v1/Managers/1/VirtualMedia/1", "/redfish/v1/Managers/1/VirtualMedia/2"},
			[]string{"CD", "DVD"}, "Cd", "UsbCd", "GracefulShutdown", true, nil, false},
		{"supermicro", "/redfish/v1/Systems/1", "/redfish/v1/Managers/1/VirtualMedia",
			[]string{"/redfish/v1/Managers/1/VirtualMedia/CD1"},
			[]string{"CD", "DVD"}, "UsbCd", "", "GracefulShutdownGracefulRestart", false, "SystemHardwareInitializationComplete", false},
		{"xcc", "/redfish/v1/Systems/1", "",
			[]string{"/redfish/v1/Managers/1/VirtualMedia/RDOC1", "/redfish/v1/Managers/1/VirtualMedia/RDOC2",
				"/redfish/v1/Managers/1/VirtualMedia/EXT1", "/redfish/v1/Managers/1/VirtualMedia/EXT2"},
			[]string{"CD", "DVD", "USBStick"}, "Cd", "UsbCd", "GracefulShutdown", true, nil, false},
		{"dmtf", "/redfish/v1/Systems/437XR1138R2", "",
			[]string{"/redfish/v1/Managers/BMC/VirtualMedia/Floppy1", "/redfish/v1/Managers/BMC/VirtualMedia/CD1"},
			[]string{"CD", "DVD"}, "Cd", "UsbCd", "GracefulShutdown", false, "OSRunning", false},
		{"helpful", "/redfish/v1/Systems/System.Embedded.1", "/redfish/v1/Systems/System.Embedded.1/VirtualMedia",
			[]string{"/redfish/v1/Systems/System.Embedded.1/VirtualMedia/1", "/redfish/v1/Managers/iDRAC.Embedded.1/VirtualMedia/CD"},
			[]string{"CD", "DVD"}, "Cd", "UsbCd", "GracefulShutdown", false, "OSRunning", true},
	} {
		t.Run(tc.profile, func(t *testing.T) {
			r := newRig(t, profile(tc.profile))
			token := r.login()
			sys := r.do(http.MethodGet, systemsPath, nil, token)
			require.Equal(t, []string{tc.system}, members(sys.body))
			assert.Equal(t, tc.system, r.b.SystemPath())
			rep := r.do(http.MethodGet, tc.system, nil, token)
			require.Equal(t, http.StatusOK, rep.code)
			s := rep.body

			link, _ := field(s, "VirtualMedia", "@odata.id").(string)
			assert.Equal(t, tc.mediaLink, link)
			var got []string
			for _, c := range []string{r.b.paths.sysMedia, r.b.paths.mgrMedia} {
				if c != "" {
					got = append(got, members(r.do(http.MethodGet, c, nil, token).body)...)
				}
			}
			assert.Equal(t, tc.media, got, "members in the vendor's order")
			last := r.do(http.MethodGet, got[len(got)-1], nil, token)
			assert.Equal(t, tc.cdTypes, strs(last.body["MediaTypes"]))

			targets := strs(field(s, "Boot", "BootSourceOverrideTarget@Redfish.AllowableValues"))
			assert.Contains(t, targets, tc.targetsHas)
			if tc.targetsLacks != "" {
				assert.NotContains(t, targets, tc.targetsLacks)
			}
			assert.Contains(t, strs(field(s, "Actions", "#ComputerSystem.Reset", "ResetType@Redfish.AllowableValues")), tc.resetHas)

			etag := rep.header.Get("ETag")
			assert.Equal(t, tc.weak, strings.HasPrefix(etag, `W/"`), etag)
			assert.Equal(t, etag, s["@odata.etag"])
			assert.Equal(t, tc.bootProgress, field(s, "BootProgress", "LastState"))

			_, hasOS := s["OperatingSystem"]
			assert.Equal(t, tc.helpful, hasOS)
			osCode := r.do(http.MethodGet, tc.system+"/OperatingSystem", nil, token).code
			imgCode := r.do(http.MethodGet, osImagePath, nil, token).code
			if tc.helpful {
				assert.Equal(t, []int{200, 200}, []int{osCode, imgCode})
			} else {
				assert.Equal(t, []int{404, 404}, []int{osCode, imgCode}, "no OperatingSystem or OS SoftwareImage")
			}
			bios := r.do(http.MethodGet, biosImagePath, nil, token)
			assert.Equal(t, s["BiosVersion"], bios.body["Version"], "firmware versions readable on every profile")
		})
	}
}

func TestNoMediaProfileHasNoVirtualMedia(t *testing.T) {
	r := newRig(t, profile("nomedia"))
	assert.Nil(t, r.system()["VirtualMedia"])
	mgr := r.do(http.MethodGet, r.b.paths.manager, nil)
	require.Equal(t, http.StatusOK, mgr.code)
	assert.Nil(t, mgr.body["VirtualMedia"])
	assert.Equal(t, http.StatusNotFound, r.do(http.MethodGet, r.b.paths.manager+"/VirtualMedia", nil).code)
	assert.Empty(t, r.b.slots())
}

func TestProfileNames(t *testing.T) {
	assert.Equal(t, []string{"bootmode-absent", "bootmode-legacy", "dmtf", "helpful", "idrac10", "idrac9", "idrac9-lagging", "idrac9-slow", "ilo4", "ilo5", "noauth", "noinventory", "nomedia",
		"shape-filename", "shape-hostcase", "shape-imagename", "shape-late", "shape-noport", "shape-percent", "shape-redirect",
		"supermicro", "supermicro-x12", "sushy", "targets-required", "tasks-204", "xcc"}, ProfileNames())
	assert.True(t, KnownProfile(""), "empty is the default")
	assert.False(t, KnownProfile("idrac8"))
	p, ok := LookupProfile("")
	require.True(t, ok)
	assert.Equal(t, "idrac9", p.Name)
	assert.False(t, p.Helpful, "the default is realistic")
	b := New(Config{BMM: "x"})
	defer b.Close()
	assert.Equal(t, "idrac9", b.Profile().Name)
}
