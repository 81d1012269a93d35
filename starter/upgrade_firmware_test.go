package main

import (
	"testing"

	"github.com/rackroll/rackroll/internal/firmware"
	"github.com/stretchr/testify/require"
)

// The plan's firmware lines: a count of the servers at the baseline, then
// a line for each that gets a component, cannot be judged, or was not read.
func TestFirmwareNotes(t *testing.T) {
	require.Nil(t, firmwareNotes("4.2.0", nil), "no baseline: no lines")
	got := firmwareNotes("4.2.0", []plannedFirmware{
		{BMM: "rack1-c1", Apply: []string{"BIOS 1.10.0 (System.BiosVersion) → 1.13.2", "iDRAC 6.10 (Manager.FirmwareVersion) → 7.00.30.00"}},
		{BMM: "rack1-c2"},
		{BMM: "rack2-c1", Unknown: []string{"NIC: no version read, minimum 22.31.6: no FirmwareInventory member matches \"^NIC\""}},
		{BMM: "rack2-c2", Error: "BMC unreachable"},
	})
	require.Equal(t, []string{
		"Firmware: baseline of 4.2.0, applied after each server's drain, before its reimage; 1 of 4 servers at it already",
		"Firmware rack1-c1: gets BIOS 1.10.0 (System.BiosVersion) → 1.13.2, iDRAC 6.10 (Manager.FirmwareVersion) → 7.00.30.00",
		"Firmware rack2-c1: not judged NIC: no version read, minimum 22.31.6: no FirmwareInventory member matches \"^NIC\"",
		"Firmware rack2-c2: not read from this machine (BMC unreachable); the upgrade's step reads it",
	}, got)
}

// The plan says per component the version and where it was read: a BMC
// without a FirmwareInventory by its System and Manager, one line per
// component however many ports it has; -o json lists every component.
func TestPlanOfNamesWhereEachVersionWasRead(t *testing.T) {
	comp := func(name, kind, inventory, minimum string) firmware.Component {
		return firmware.Component{Name: name, Kind: kind, Inventory: inventory, Minimum: minimum, Image: "http://fw.example/x.bin",
			Apply: firmware.Apply{Method: firmware.MethodSimpleUpdate}}
	}
	base := firmware.Baseline{
		{Match: firmware.Match{Manufacturer: "Contoso"}, Components: []firmware.Component{
			comp("BIOS", "bios", "^BIOS$", "1.1.0"), comp("BMC", "bmc", "^BMC$", "1.00"), comp("CPLD", "other", "CPLD", "2")}},
		{Match: firmware.Match{Manufacturer: "Dell Inc."}, Components: []firmware.Component{comp("NIC", "nic", "^NIC", "22.31.6")}},
	}
	sushy := serverFirmware{BMM: "rack1-c1", server: firmware.Server{Manufacturer: "Contoso", NoInventory: true, InventoryWhy: "UpdateService/FirmwareInventory: HTTP 404",
		Properties: []firmware.Property{{Kind: "bios", Source: "System.BiosVersion", Version: "1.0.0"}, {Kind: "bmc", Source: "Manager.FirmwareVersion", Version: "1.00"}}}}
	p := planOf(base, sushy)
	require.Equal(t, []string{"BIOS 1.0.0 (System.BiosVersion) → 1.1.0"}, p.Apply)
	require.Equal(t, []string{"CPLD: no version read, minimum 2: the BMC has no FirmwareInventory (UpdateService/FirmwareInventory: HTTP 404) and kind other has no standard version property to read instead"}, p.Unknown)
	require.Len(t, p.Components, 3, "every component, at the baseline too")
	require.Equal(t, "1.00 (Manager.FirmwareVersion)", p.Components[1].Read())
	require.Equal(t, firmware.AtBaseline, p.Components[1].Status)

	dell := serverFirmware{BMM: "rack1-c2", server: firmware.Server{Manufacturer: "Dell Inc.", Items: []firmware.Item{
		{ID: "NIC.1-1", Name: "NIC port 1", Version: "22.0.1"}, {ID: "NIC.1-2", Name: "NIC port 2", Version: "22.0.1"}}}}
	require.Equal(t, []string{"NIC 22.0.1 (FirmwareInventory/NIC.1-1), 22.0.1 (FirmwareInventory/NIC.1-2) → 22.31.6"}, planOf(base, dell).Apply,
		"one line for the component, both ports in it")
	require.Equal(t, plannedFirmware{BMM: "rack2-c1", Error: "unreachable"}, planOf(base, serverFirmware{BMM: "rack2-c1", Error: "unreachable"}))
}
