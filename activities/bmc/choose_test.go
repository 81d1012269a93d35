package bmc

import (
	"testing"

	"github.com/rackroll/rackroll/activities/bmc/bmcclient"
	"github.com/stretchr/testify/assert"
)

// vm is a member as a vendor lists it.
func vm(loc, id string, types ...string) bmcclient.MediaInfo {
	return bmcclient.MediaInfo{URI: "/redfish/v1/x/VirtualMedia/" + id, ID: id, Location: loc, MediaTypes: types}
}

func TestChooseVirtualCD(t *testing.T) {
	for _, tc := range []struct {
		vendor  string
		members []bmcclient.MediaInfo
		want    string // chosen ID; "" none
		why     string
		ranked  []string
	}{
		{"iDRAC9 lists 2 before 1", []bmcclient.MediaInfo{vm("System", "2", "CD", "DVD", "USBStick"), vm("System", "1", "CD", "DVD", "USBStick")},
			"1", "System VirtualMedia 1: takes CD/DVD, the vendor's virtual-CD id", []string{"1", "2"}},
		{"older iDRAC under the Manager", []bmcclient.MediaInfo{vm("Manager", "RemovableDisk", "USBStick"), vm("Manager", "CD", "CD", "DVD")},
			"CD", "Manager VirtualMedia CD: takes CD/DVD, the vendor's virtual-CD id", []string{"CD"}},
		{"iLO 5: 1 is the floppy", []bmcclient.MediaInfo{vm("Manager", "1", "Floppy", "USBStick"), vm("Manager", "2", "CD", "DVD")},
			"2", "Manager VirtualMedia 2: takes CD/DVD, the vendor's virtual-CD id", []string{"2"}},
		{"Supermicro", []bmcclient.MediaInfo{vm("Manager", "USB1", "USBStick"), vm("Manager", "CD1", "CD")},
			"CD1", "Manager VirtualMedia CD1: takes CD/DVD, the vendor's virtual-CD id", []string{"CD1"}},
		{"Lenovo XCC: upload slots first", []bmcclient.MediaInfo{vm("Manager", "RDOC1", "CD", "DVD"), vm("Manager", "Remote1", "CD", "DVD"),
			vm("Manager", "EXT1", "CD", "DVD", "USBStick"), vm("Manager", "EXT2", "CD", "DVD", "USBStick")},
			"EXT1", "Manager VirtualMedia EXT1: takes CD/DVD", []string{"EXT1", "EXT2"}},
		{"DMTF mockup", []bmcclient.MediaInfo{vm("Manager", "Floppy1", "Floppy", "USBStick"), vm("Manager", "CD1", "CD", "DVD")},
			"CD1", "Manager VirtualMedia CD1: takes CD/DVD, the vendor's virtual-CD id", []string{"CD1"}},
		{"an applet holds the drive", []bmcclient.MediaInfo{{ID: "1", Location: "System", MediaTypes: []string{"CD"}, ConnectedVia: "Applet"}, vm("System", "2", "DVD")},
			"2", "System VirtualMedia 2: takes CD/DVD, the vendor's virtual-CD id", []string{"2"}},
		{"no MediaTypes listed: last resort", []bmcclient.MediaInfo{vm("Manager", "A"), vm("Manager", "B", "USBStick")},
			"A", "Manager VirtualMedia A: lists no MediaTypes; tried last", []string{"A"}},
		{"typed members before untyped", []bmcclient.MediaInfo{vm("Manager", "A"), vm("Manager", "B", "DVD")},
			"B", "Manager VirtualMedia B: takes CD/DVD", []string{"B", "A"}},
		{"only upload and USB slots", []bmcclient.MediaInfo{vm("Manager", "RDOC1", "CD"), vm("Manager", "USB1", "USBStick")}, "", "", nil},
		{"nothing", nil, "", "", nil},
	} {
		t.Run(tc.vendor, func(t *testing.T) {
			got, why, ok := ChooseVirtualCD(tc.members)
			assert.Equal(t, tc.want != "", ok)
			assert.Equal(t, tc.want, got.ID)
			if ok {
				assert.Equal(t, tc.why, why)
			} else {
				assert.NotEmpty(t, why, "says what was offered")
			}
			ranked, reasons := RankVirtualCDs(tc.members)
			var ids []string
			for _, m := range ranked {
				ids = append(ids, m.ID)
			}
			assert.Equal(t, tc.ranked, ids)
			assert.Len(t, reasons, len(ranked))
		})
	}
}

func TestNoVirtualCDSaysWhatWasSeen(t *testing.T) {
	_, why, _ := ChooseVirtualCD([]bmcclient.MediaInfo{vm("Manager", "RDOC1", "CD")})
	assert.Equal(t, "no virtual-media member takes a CD/DVD outside the upload slots (seen: Manager RDOC1 [CD])", why)
	_, why, _ = ChooseVirtualCD(nil)
	assert.Equal(t, "the BMC lists no virtual media under the System or the Manager", why)
}

func TestChooseBootTarget(t *testing.T) {
	for _, tc := range []struct {
		name    string
		allowed []string
		want    string
		ok      bool
	}{
		{"not listed", nil, "Cd", true},
		{"iDRAC", []string{"None", "Pxe", "Floppy", "Cd", "Hdd", "BiosSetup", "Utilities", "UefiTarget", "SDCard", "UefiHttp"}, "Cd", true},
		{"Supermicro", []string{"None", "Pxe", "Hdd", "Diags", "CD/DVD", "BiosSetup", "FloppyRemovableMedia", "UsbKey", "UsbHdd", "UsbFloppy", "UsbCd", "UefiUsbKey", "UefiCd", "UefiHdd", "UefiUsbHdd", "UefiUsbCd"}, "UsbCd", true},
		{"both", []string{"UsbCd", "Cd"}, "Cd", true},
		{"neither", []string{"None", "Pxe", "Hdd"}, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := ChooseBootTarget(tc.allowed)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.ok, ok)
		})
	}
}

func TestCanShutdownGracefully(t *testing.T) {
	for _, tc := range []struct {
		name    string
		allowed []string
		want    bool
	}{
		{"not listed", nil, true},
		{"standard", []string{"On", "ForceOff", "GracefulShutdown", "ForceRestart"}, true},
		{"Supermicro 1.14 malformed", []string{"On", "ForceOff", "GracefulShutdownGracefulRestart", "ForceRestart", "Nmi", "ForceOn"}, true},
		{"no graceful", []string{"On", "ForceOff", "ForceRestart"}, false},
		{"graceful restart only", []string{"On", "ForceOff", "GracefulRestart"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, CanShutdownGracefully(tc.allowed))
		})
	}
}
