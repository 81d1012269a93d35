package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The plan's firmware lines: a count of the servers at the baseline, then
// a line for each that gets a component, cannot be judged, or was not read.
func TestFirmwareNotes(t *testing.T) {
	require.Nil(t, firmwareNotes("4.2.0", nil), "no baseline: no lines")
	got := firmwareNotes("4.2.0", []plannedFirmware{
		{BMM: "rack1-c1", Apply: []string{"BIOS 1.10.0 → 1.13.2", "iDRAC 6.10 → 7.00.30.00"}},
		{BMM: "rack1-c2"},
		{BMM: "rack2-c1", Unknown: []string{"NIC: no FirmwareInventory member matches \"^NIC\""}},
		{BMM: "rack2-c2", Error: "BMC unreachable"},
	})
	require.Equal(t, []string{
		"Firmware: baseline of 4.2.0, applied after each server's drain, before its reimage; 1 of 4 servers at it already",
		"Firmware rack1-c1: gets BIOS 1.10.0 → 1.13.2, iDRAC 6.10 → 7.00.30.00",
		"Firmware rack2-c1: not judged NIC: no FirmwareInventory member matches \"^NIC\"",
		"Firmware rack2-c2: not read from this machine (BMC unreachable); the upgrade's step reads it",
	}, got)
}
