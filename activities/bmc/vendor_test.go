package bmc

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Vendor-shaped services (hand-written after the shapes of public
// payloads) driven through the real gofish client.

const mgr = "/redfish/v1/Managers/1"

func vendorEndpoint(t *testing.T, b *miniBMC) Endpoint {
	ep := testEndpoint
	ep.Address = b.start(t, false).URL
	return ep
}

// resetsTo makes every ComputerSystem.Reset set PowerState.
func resetsTo(sys, power string) func(*miniBMC, string, doc) (int, string) {
	return func(b *miniBMC, path string, _ doc) (int, string) {
		if path == sys+"/Actions/ComputerSystem.Reset" {
			b.docs[sys]["PowerState"] = power
		}
		return 204, ""
	}
}

func TestLenovoXCCPatchesTheFirstNonUploadSlot(t *testing.T) {
	b := newMiniBMC(true)
	sys := b.system("1", "Off", []string{"On", "ForceOff", "GracefulShutdown", "ForceRestart", "Nmi"},
		[]string{"None", "Pxe", "Cd", "Usb", "Hdd", "BiosSetup"})
	// XCC: RDOC upload slots first, network slots without actions (PATCH).
	b.media(mgr,
		doc{"Id": "RDOC1", "MediaTypes": []string{"CD", "DVD"}, "ConnectedVia": "NotConnected", "Inserted": false},
		doc{"Id": "EXT1", "MediaTypes": []string{"CD", "DVD", "USBStick"}, "ConnectedVia": "NotConnected", "Inserted": false})
	b.onPost = resetsTo(sys, "On")
	res, err := gofishActivities().Reimage(context.Background(), ReimageInput{Endpoint: vendorEndpoint(t, b), ImageURL: image, Version: "4.2.0"})
	require.NoError(t, err)
	assert.True(t, res.Reimaged)
	assert.Equal(t, "PowerState On, Status.State Enabled", res.LastState)
	ext := mgr + "/VirtualMedia/EXT1"
	require.Len(t, b.bodies[ext], 1)
	assert.Equal(t, doc{"Image": image, "Inserted": true, "WriteProtected": true, "TransferProtocolType": "HTTP"}, b.bodies[ext][0])
	assert.Empty(t, b.bodies[mgr+"/VirtualMedia/RDOC1"])
	assert.Equal(t, []doc{{"ResetType": "On"}}, b.bodies[sys+"/Actions/ComputerSystem.Reset"])
	assert.Equal(t, "Cd", b.docs[sys]["Boot"].(map[string]any)["BootSourceOverrideTarget"])
}

func TestSupermicroUsbCdFewerParametersAndMalformedGraceful(t *testing.T) {
	b := newMiniBMC(true)
	sys := b.system("1", "On", []string{"On", "ForceOff", "GracefulShutdownGracefulRestart", "ForceRestart", "Nmi", "ForceOn"},
		[]string{"None", "Pxe", "Hdd", "Diags", "CD/DVD", "BiosSetup", "UsbCd", "UefiCd"})
	b.media(mgr, withActions(mgr, doc{"Id": "CD1", "MediaTypes": []string{"CD", "DVD"}, "Inserted": false}),
		withActions(mgr, doc{"Id": "USB1", "MediaTypes": []string{"USBStick"}, "Inserted": false}))
	insert := mgr + "/VirtualMedia/CD1/Actions/VirtualMedia.InsertMedia"
	b.onPost = func(b *miniBMC, path string, body doc) (int, string) {
		switch path {
		case insert: // X11 refuses TransferProtocolType
			if _, ok := body["TransferProtocolType"]; ok {
				return 400, ""
			}
			b.docs[mgr+"/VirtualMedia/CD1"]["Image"], b.docs[mgr+"/VirtualMedia/CD1"]["Inserted"] = body["Image"], true
		case sys + "/Actions/ComputerSystem.Reset":
			b.docs[sys]["PowerState"] = map[string]string{"GracefulShutdown": "Off", "ForceRestart": "PoweringOff"}[body["ResetType"].(string)]
		}
		return 204, ""
	}
	ep := vendorEndpoint(t, b)
	a := gofishActivities()
	res, err := a.Reimage(context.Background(), ReimageInput{Endpoint: ep, ImageURL: image, Version: "4.2.0"})
	require.NoError(t, err)
	assert.Contains(t, res.LastState, "PowerState PoweringOff")
	require.Len(t, b.bodies[insert], 2)
	assert.Equal(t, doc{"Image": image, "Inserted": true, "WriteProtected": true}, b.bodies[insert][1])
	assert.Equal(t, "UsbCd", b.docs[sys]["Boot"].(map[string]any)["BootSourceOverrideTarget"])

	b.docs[sys]["PowerState"] = "On"
	require.NoError(t, a.PowerOff(context.Background(), PowerOffInput{Endpoint: ep}))
	resets := b.bodies[sys+"/Actions/ComputerSystem.Reset"]
	assert.Equal(t, doc{"ResetType": "GracefulShutdown"}, resets[len(resets)-1], "graceful despite the malformed allowable value")
}

func TestIDRACPrefersSlotOneAndReturnsTheTask(t *testing.T) {
	b := newMiniBMC(true)
	sys := b.system("System.Embedded.1", "On", []string{"On", "ForceOff", "ForceRestart", "GracefulShutdown", "PushPowerButton", "Nmi", "PowerCycle"},
		[]string{"None", "Pxe", "Floppy", "Cd", "Hdd", "BiosSetup", "Utilities", "UefiTarget", "SDCard", "UefiHttp"})
	// iDRAC lists 2 first and reports a stale Inserted on 1.
	b.media(sys, withActions(sys, doc{"Id": "2", "MediaTypes": []string{"CD", "DVD", "USBStick"}, "Inserted": false, "Image": nil}),
		withActions(sys, doc{"Id": "1", "MediaTypes": []string{"CD", "DVD", "USBStick"}, "Inserted": true, "Image": nil}))
	one := sys + "/VirtualMedia/1"
	b.onPost = func(b *miniBMC, path string, body doc) (int, string) {
		switch path {
		case one + "/Actions/VirtualMedia.EjectMedia":
			b.docs[one]["Inserted"] = false
		case one + "/Actions/VirtualMedia.InsertMedia":
			b.docs[one]["Image"], b.docs[one]["Inserted"] = body["Image"], true
		case sys + "/Actions/ComputerSystem.Reset":
			return 202, "/redfish/v1/TaskService/TaskMonitors/JID_1"
		}
		return 204, ""
	}
	res, err := gofishActivities().Reimage(context.Background(), ReimageInput{Endpoint: vendorEndpoint(t, b), ImageURL: image, Version: "4.2.0"})
	require.NoError(t, err)
	assert.Equal(t, "/redfish/v1/TaskService/TaskMonitors/JID_1", res.Task)
	assert.Len(t, b.bodies[one+"/Actions/VirtualMedia.EjectMedia"], 1, "the stale Inserted is ejected first")
	assert.Len(t, b.bodies[one+"/Actions/VirtualMedia.InsertMedia"], 1)
	assert.Empty(t, b.bodies[sys+"/VirtualMedia/2/Actions/VirtualMedia.InsertMedia"])
	assert.Equal(t, image, b.docs[one]["Image"], "the installer stays in")
}
