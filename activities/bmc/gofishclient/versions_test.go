package gofishclient

import (
	"context"
	"testing"

	"github.com/rackroll/rackroll/internal/firmware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type docs = map[string]map[string]any

// withStandardVersions gives the System a BIOS version, a Manager, a
// chassis with two network adapters (one with two controllers) and two
// storage subsystems: one listing its controllers inline, one as a
// collection (Storage v1.13 and later).
func withStandardVersions(d docs) {
	sys := d["/redfish/v1/Systems/1"]
	sys["Name"], sys["BiosVersion"] = "System", "1.0.0"
	sys["Links"] = map[string]any{"ManagedBy": []any{ref("/redfish/v1/Managers/BMC")}, "Chassis": []any{ref("/redfish/v1/Chassis/1")}}
	sys["Storage"] = ref("/redfish/v1/Systems/1/Storage")
	d["/redfish/v1/Managers/BMC"] = map[string]any{"@odata.id": "/redfish/v1/Managers/BMC", "Id": "BMC", "Name": "Manager", "FirmwareVersion": "1.00"}
	d["/redfish/v1/Chassis/1"] = map[string]any{"@odata.id": "/redfish/v1/Chassis/1", "Id": "1", "NetworkAdapters": ref("/redfish/v1/Chassis/1/NetworkAdapters")}
	d["/redfish/v1/Chassis/1/NetworkAdapters"] = map[string]any{"Members": []any{
		ref("/redfish/v1/Chassis/1/NetworkAdapters/NIC.Slot.1"), ref("/redfish/v1/Chassis/1/NetworkAdapters/NIC.Slot.2")}}
	d["/redfish/v1/Chassis/1/NetworkAdapters/NIC.Slot.1"] = map[string]any{"@odata.id": "/redfish/v1/Chassis/1/NetworkAdapters/NIC.Slot.1",
		"Id": "NIC.Slot.1", "Name": "Broadcom 57414", "Controllers": []any{map[string]any{"FirmwarePackageVersion": "22.0.1"}}}
	d["/redfish/v1/Chassis/1/NetworkAdapters/NIC.Slot.2"] = map[string]any{"@odata.id": "/redfish/v1/Chassis/1/NetworkAdapters/NIC.Slot.2",
		"Id": "NIC.Slot.2", "Name": "Intel E810", "Controllers": []any{map[string]any{}, map[string]any{"FirmwarePackageVersion": "4.20"}}}
	d["/redfish/v1/Systems/1/Storage"] = map[string]any{"Members": []any{ref("/redfish/v1/Systems/1/Storage/RAID.1"), ref("/redfish/v1/Systems/1/Storage/NVMe")}}
	d["/redfish/v1/Systems/1/Storage/RAID.1"] = map[string]any{"@odata.id": "/redfish/v1/Systems/1/Storage/RAID.1", "Id": "RAID.1",
		"StorageControllers": []any{map[string]any{"MemberId": "0", "Name": "PERC H755", "FirmwareVersion": "52.16.1-4405"}}}
	d["/redfish/v1/Systems/1/Storage/NVMe"] = map[string]any{"@odata.id": "/redfish/v1/Systems/1/Storage/NVMe", "Id": "NVMe",
		"Controllers": ref("/redfish/v1/Systems/1/Storage/NVMe/Controllers")}
	d["/redfish/v1/Systems/1/Storage/NVMe/Controllers"] = map[string]any{"Members": []any{ref("/redfish/v1/Systems/1/Storage/NVMe/Controllers/0")}}
	d["/redfish/v1/Systems/1/Storage/NVMe/Controllers/0"] = map[string]any{"@odata.id": "/redfish/v1/Systems/1/Storage/NVMe/Controllers/0",
		"Id": "0", "Name": "NVMe controller", "FirmwareVersion": "2.1"}
}

// sushyUpdateService links a FirmwareInventory it does not serve, as
// sushy-tools does.
func sushyUpdateService(d docs) {
	d["/redfish/v1"]["UpdateService"] = ref("/redfish/v1/UpdateService")
	d["/redfish/v1/UpdateService"] = map[string]any{"@odata.id": "/redfish/v1/UpdateService", "Id": "UpdateService",
		"FirmwareInventory": ref("/redfish/v1/UpdateService/FirmwareInventory")}
}

// Without a FirmwareInventory the read is no error: it says why, and
// every standard property is read with where it was found.
func TestFirmwareWithoutAnInventoryReadsTheStandardProperties(t *testing.T) {
	_, c := newRedfishServer(t, withStandardVersions, sushyUpdateService)
	s, err := c.Firmware(context.Background())
	require.NoError(t, err)
	assert.True(t, s.NoInventory)
	assert.Equal(t, "UpdateService/FirmwareInventory: HTTP 404", s.InventoryWhy)
	assert.Empty(t, s.Items)
	assert.Empty(t, s.PropertyErrors)
	assert.Equal(t, []firmware.Property{
		{Kind: "bios", Source: "System.BiosVersion", ID: "1", Name: "System", Version: "1.0.0"},
		{Kind: "bmc", Source: "Manager.FirmwareVersion", ID: "BMC", Name: "Manager", Version: "1.00"},
		{Kind: "nic", Source: "NetworkAdapters/NIC.Slot.1.Controllers[0].FirmwarePackageVersion", ID: "NIC.Slot.1", Name: "Broadcom 57414", Version: "22.0.1"},
		{Kind: "nic", Source: "NetworkAdapters/NIC.Slot.2.Controllers[1].FirmwarePackageVersion", ID: "NIC.Slot.2", Name: "Intel E810", Version: "4.20"},
		{Kind: "storage", Source: "Storage/RAID.1.StorageControllers[0].FirmwareVersion", ID: "0", Name: "PERC H755", Version: "52.16.1-4405"},
		{Kind: "storage", Source: "Storage/NVMe/Controllers/0.FirmwareVersion", ID: "0", Name: "NVMe controller", Version: "2.1"},
	}, s.Properties)
}

// Each way a BMC can lack an inventory is named; none is an error.
func TestFirmwareNamesWhyThereIsNoInventory(t *testing.T) {
	for why, d := range map[string]func(docs){
		"the BMC links no UpdateService": func(d docs) { delete(d["/redfish/v1"], "UpdateService") },
		"UpdateService: HTTP 404":        func(d docs) { d["/redfish/v1"]["UpdateService"] = ref("/redfish/v1/UpdateService") },
		"the UpdateService links no FirmwareInventory": func(d docs) {
			sushyUpdateService(d)
			delete(d["/redfish/v1/UpdateService"], "FirmwareInventory")
		},
		"the FirmwareInventory lists no member": func(d docs) {
			sushyUpdateService(d)
			d["/redfish/v1/UpdateService/FirmwareInventory"] = map[string]any{"Members": []any{}}
		},
	} {
		t.Run(why, func(t *testing.T) {
			_, c := newRedfishServer(t, withStandardVersions, d)
			s, err := c.Firmware(context.Background())
			require.NoError(t, err)
			assert.True(t, s.NoInventory)
			assert.Equal(t, why, s.InventoryWhy)
			assert.Len(t, s.Properties, 6)
		})
	}
}

// With an inventory, its members are read and the properties too; a
// property the BMC fails to show is named, not fatal. Without one, a
// 5xx there fails the read (a retry may get it), a 4xx is named.
func TestFirmwarePropertyFailures(t *testing.T) {
	withInventory := func(d docs) {
		sushyUpdateService(d)
		d["/redfish/v1/UpdateService/FirmwareInventory"] = map[string]any{"Members": []any{ref("/redfish/v1/UpdateService/FirmwareInventory/BIOS")}}
		d["/redfish/v1/UpdateService/FirmwareInventory/BIOS"] = map[string]any{"@odata.id": "/redfish/v1/UpdateService/FirmwareInventory/BIOS",
			"Id": "BIOS", "Name": "BIOS", "Version": "1.0.0", "Updateable": true, "RelatedItem": []any{ref("/redfish/v1/Systems/1")}}
	}
	srv, c := newRedfishServer(t, withStandardVersions, withInventory)
	srv.refuse["/redfish/v1/Chassis/1/NetworkAdapters"] = 500
	s, err := c.Firmware(context.Background())
	require.NoError(t, err)
	assert.False(t, s.NoInventory)
	assert.Equal(t, []firmware.Item{{ID: "BIOS", Name: "BIOS", Version: "1.0.0", Updateable: true, RelatedItem: []string{"/redfish/v1/Systems/1"}}}, s.Items)
	assert.Equal(t, map[string]string{"nic": "/redfish/v1/Chassis/1/NetworkAdapters: HTTP 500: refused /redfish/v1/Chassis/1/NetworkAdapters"}, s.PropertyErrors)
	assert.Len(t, s.Properties, 4, "BIOS, BMC and the two storage controllers")

	srv, c = newRedfishServer(t, withStandardVersions, sushyUpdateService)
	srv.refuse["/redfish/v1/Managers/BMC"] = 503
	_, err = c.Firmware(context.Background())
	require.Error(t, err, "the properties are all there is: a retry may read them")

	srv.refuse["/redfish/v1/Managers/BMC"] = 403
	s, err = c.Firmware(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "/redfish/v1/Managers/BMC: HTTP 403: refused /redfish/v1/Managers/BMC", s.PropertyErrors["bmc"])
	assert.Len(t, s.Properties, 5)
}
