package bmc

import (
	"context"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/firmware"
	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/lab/redfish"
	"github.com/rackroll/rackroll/internal/lab/redfish/redfishtest"
	"github.com/rackroll/rackroll/internal/sitecheck"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func (l *labRig) readFirmware() firmware.Server {
	l.t.Helper()
	val, err := l.env.ExecuteActivity(l.a.ReadFirmware, l.ep)
	require.NoError(l.t, err)
	var s firmware.Server
	require.NoError(l.t, val.Get(&s))
	return s
}

// ReadFirmware reads every profile's FirmwareInventory through gofish:
// the System's manufacturer and model, and each member's Id, Name,
// Version, Updateable and RelatedItem; and, on every profile, the
// System's BiosVersion and the Manager's FirmwareVersion.
func TestLabReadFirmwareEveryProfile(t *testing.T) {
	for _, name := range redfish.ProfileNames() {
		t.Run(name, func(t *testing.T) {
			l := newLab(t, redfishtest.Profile(name))
			s := l.readFirmware()
			p, _ := redfish.LookupProfile(name)
			assert.Equal(t, p.Manufacturer, s.Manufacturer)
			assert.Equal(t, p.Model, s.Model)
			require.Len(t, s.Properties, 2, "BiosVersion and FirmwareVersion")
			assert.Equal(t, []string{p.BiosVersion, p.Firmware}, []string{s.Properties[0].Version, s.Properties[1].Version})
			assert.Equal(t, p.NoFirmwareInventory, s.NoInventory)
			if p.NoFirmwareInventory {
				assert.Empty(t, s.Items)
				return
			}
			require.GreaterOrEqual(t, len(s.Items), 2, "BIOS and BMC at least")
			for _, it := range s.Items {
				assert.NotEmpty(t, it.ID)
				assert.NotEmpty(t, it.Version, it.ID)
				assert.True(t, it.Updateable, it.ID)
				assert.Len(t, it.RelatedItem, 1, it.ID)
			}
			assert.Equal(t, 0, l.bmc.Sessions(), "the read logs out")
		})
	}
}

// The judge over what the lab's iDRAC, iLO and Supermicro show: vendor
// ids, vendor version shapes, a component the BMC does not list.
func TestLabFirmwareAgainstABaseline(t *testing.T) {
	comp := func(name, kind, inventory, minimum string) firmware.Component {
		return firmware.Component{Name: name, Kind: kind, Inventory: inventory, Minimum: minimum,
			Image: "http://fw.example/" + kind + "-" + minimum + ".bin", Apply: firmware.Apply{Method: firmware.MethodSimpleUpdate}}
	}
	baseline := firmware.Baseline{
		{Match: firmware.Match{Manufacturer: "Dell Inc.", Model: "PowerEdge R6*"}, Components: []firmware.Component{
			comp("BIOS", "bios", "^BIOS$", "1.14.0"), comp("iDRAC", "bmc", "Remote Access Controller", "7.00.00.171"),
			comp("NIC", "nic", "NIC.Integrated", "22.31.6")}},
		{Match: firmware.Match{Manufacturer: "HPE"}, Components: []firmware.Component{
			comp("System ROM", "bios", "^System ROM$", "U46 v1.64"), comp("iLO", "bmc", "^iLO", "2.90")}},
		{Match: firmware.Match{Manufacturer: "supermicro"}, Components: []firmware.Component{
			comp("BIOS", "bios", "^BIOS$", "2.0"), comp("NIC", "nic", "NIC", "1.0")}},
	}
	for name, want := range map[string][]firmware.Status{
		"idrac9":     {firmware.Below, firmware.AtBaseline, firmware.AtBaseline},
		"ilo5":       {firmware.AtBaseline, firmware.Below},
		"supermicro": {firmware.AtBaseline, firmware.Unknown},
	} {
		t.Run(name, func(t *testing.T) {
			l := newLab(t, redfishtest.Profile(name))
			rep := firmware.Judge(baseline, l.readFirmware())
			var got []firmware.Status
			for _, r := range rep.Rows {
				got = append(got, r.Status)
			}
			assert.Equal(t, want, got, "%+v", rep.Rows)
		})
	}
}

// site check reads the firmware and warns, naming the component, when a
// server is below the site's baseline; the lab counts no update request.
func TestProbeJudgesFirmware(t *testing.T) {
	srv := redfishtest.Start(t, redfishtest.Profile("idrac9"))
	t.Setenv("RR_TEST_BMC_USER", redfishtest.Username)
	t.Setenv("RR_TEST_BMC_PASS", testPassword)
	ep := Endpoint{BMM: redfishtest.BMM, Address: srv.URL, Credentials: CredentialRef{UsernameEnv: "RR_TEST_BMC_USER", PasswordEnv: "RR_TEST_BMC_PASS"}}
	items := func(b firmware.Baseline) map[string]sitecheck.Item {
		out := map[string]sitecheck.Item{}
		for _, it := range Probe(context.Background(), ep, SecretResolver{}, 10*time.Second, b) {
			out[it.Check] = it
		}
		return out
	}
	got := items(nil)
	assert.True(t, got["firmware"].OK)
	assert.Equal(t, "BIOS 1.13.2 (System.BiosVersion), BMC 7.00.30.00 (Manager.FirmwareVersion); 4 FirmwareInventory members; no firmware baseline declared for the site's runtime version",
		got["firmware"].Detail)

	b := firmware.Baseline{{Match: firmware.Match{Manufacturer: "Dell Inc."}, Components: []firmware.Component{
		{Name: "BIOS", Kind: "bios", Inventory: "^BIOS$", Minimum: "1.14.0", Image: "http://fw.example/bios-1.14.0.exe", Apply: firmware.Apply{Method: "SimpleUpdate"}}}}}
	got = items(b)
	f := got["firmware BIOS"]
	assert.False(t, f.OK)
	assert.False(t, f.Blocker, "a warning: rackroll can still run")
	assert.Equal(t, "1.13.2 (FirmwareInventory/Installed-159-1.13.2__BIOS.Setup.1-1), minimum 1.14.0: 1.13.2 is older than 1.14.0", f.Detail)
	_, unjudged := got["firmware"]
	assert.False(t, unjudged, "one finding per component, none beside it")
	b[0].Components[0].Minimum = "1.13.2"
	assert.True(t, items(b)["firmware BIOS"].OK)
	assert.Zero(t, srv.BMC.State().UpdateRequests)
	assert.Zero(t, srv.Log.Count(events.FirmwareUpdate, redfishtest.BMM))
}
