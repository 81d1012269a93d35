package bmc

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/firmware"
	"github.com/rackroll/rackroll/internal/lab/redfish/redfishtest"
	"github.com/rackroll/rackroll/internal/sitecheck"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A baseline whose components name no source: each BMC is read where it
// keeps its versions.
var sourcesBaseline = firmware.Baseline{
	{Match: firmware.Match{Manufacturer: "Contoso"}, Components: []firmware.Component{
		{Name: "BIOS", Kind: "bios", Inventory: "^BIOS$", Minimum: "1.1.0", Image: "http://fw.example/bios-1.1.0.bin", Apply: firmware.Apply{Method: firmware.MethodSimpleUpdate}},
		{Name: "BMC", Kind: "bmc", Inventory: "^BMC$", Minimum: "1.00", Image: "http://fw.example/bmc-1.00.bin", Apply: firmware.Apply{Method: firmware.MethodSimpleUpdate}}}},
	{Match: firmware.Match{Manufacturer: "Dell Inc."}, Components: []firmware.Component{
		{Name: "BIOS", Kind: "bios", Inventory: "^BIOS$", Minimum: "1.14.0", Image: "http://fw.example/bios-1.14.0.exe", Apply: firmware.Apply{Method: firmware.MethodSimpleUpdate}},
		{Name: "iDRAC", Kind: "bmc", Inventory: "Remote Access Controller", Minimum: "7.00.00.171", Image: "http://fw.example/bmc-7.00.30.00.exe",
			Apply: firmware.Apply{Method: firmware.MethodSimpleUpdate}, Source: firmware.SourceProperty}}},
}

// Each row says where its version was read: the FirmwareInventory member
// where the BMC has one, the System's and the Manager's properties where
// it has none (sushy-tools' shape), the property where the baseline asks.
func TestLabReadFirmwareShowsTheSource(t *testing.T) {
	for profile, want := range map[string][][3]string{
		"noinventory": {{"BIOS", "System.BiosVersion", "1.0.0"}, {"BMC", "Manager.FirmwareVersion", "1.00"}},
		"idrac9": {{"BIOS", "FirmwareInventory/Installed-159-1.13.2__BIOS.Setup.1-1", "1.13.2"},
			{"iDRAC", "Manager.FirmwareVersion", "7.00.30.00"}},
	} {
		t.Run(profile, func(t *testing.T) {
			l := newLab(t, redfishtest.Profile(profile))
			rep := firmware.Judge(sourcesBaseline, l.readFirmware())
			var got [][3]string
			for _, r := range rep.Rows {
				got = append(got, [3]string{r.Component, r.Source, r.Current})
			}
			assert.Equal(t, want, got)
		})
	}
}

// On a BMC without a FirmwareInventory, an update is judged, requested
// once and proven by the property it was judged by.
func TestLabApplyFirmwareWithoutAnInventory(t *testing.T) {
	l := newLab(t, redfishtest.Profile("noinventory"))
	bios := sourcesBaseline[0].Components[0]
	res, err := l.apply(bios, l.env)
	require.NoError(t, err)
	assert.True(t, res.Applied)
	assert.Equal(t, "1.1.0", res.To)
	assert.Equal(t, "BIOS 1.0.0 → 1.1.0 (System.BiosVersion)", res.Detail)
	assert.Equal(t, 1, l.bmc.State().UpdateRequests)

	bmcFW := sourcesBaseline[0].Components[1]
	bmcFW.Minimum, bmcFW.Image = "1.10", "http://fw.example/bmc-1.10.bin"
	res, err = l.apply(bmcFW, l.newEnv())
	require.NoError(t, err)
	assert.Equal(t, "BMC 1.00 → 1.10 (Manager.FirmwareVersion)", res.Detail, "read again once the BMC is back")

	again, err := l.apply(bios, l.newEnv())
	require.NoError(t, err)
	assert.False(t, again.Applied)
	assert.Equal(t, 2, l.bmc.State().UpdateRequests, "at baseline: nothing sent")
}

// site check on a BMC without a FirmwareInventory: one finding per
// component, with where it was read; nothing says the firmware could
// not be read.
func TestProbeJudgesFirmwareWithoutAnInventory(t *testing.T) {
	srv := redfishtest.Start(t, redfishtest.Profile("noinventory"))
	t.Setenv("RR_TEST_BMC_USER", redfishtest.Username)
	t.Setenv("RR_TEST_BMC_PASS", testPassword)
	ep := Endpoint{BMM: redfishtest.BMM, Address: srv.URL, Credentials: CredentialRef{UsernameEnv: "RR_TEST_BMC_USER", PasswordEnv: "RR_TEST_BMC_PASS"}}
	items := map[string]sitecheck.Item{}
	var firmwareChecks []string
	for _, it := range Probe(context.Background(), ep, SecretResolver{}, 10*time.Second, sourcesBaseline) {
		items[it.Check] = it
		if strings.HasPrefix(it.Check, "firmware") {
			firmwareChecks = append(firmwareChecks, it.Check)
		}
	}
	assert.Equal(t, []string{"firmware BIOS", "firmware BMC"}, firmwareChecks, "one finding per component, none beside them")
	assert.Equal(t, "1.0.0 (System.BiosVersion), minimum 1.1.0: 1.0.0 is older than 1.1.0", items["firmware BIOS"].Detail)
	assert.False(t, items["firmware BIOS"].OK)
	assert.False(t, items["firmware BIOS"].Blocker)
	assert.True(t, items["firmware BMC"].OK)
	assert.Equal(t, "1.00 (Manager.FirmwareVersion), minimum 1.00", items["firmware BMC"].Detail)
	assert.Zero(t, srv.BMC.State().UpdateRequests)
}
