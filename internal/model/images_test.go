package model

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestImagesSectionProblemsAreListedTogether(t *testing.T) {
	good := strings.Repeat("ab", 32)
	_, err := ParseValid([]byte(minimalYAML+"images:\n  urlTemplate: ftp://images/rackroll.iso\n  sha256: {\"4.2.0\": xyz, \"not-a-version!\": "+good+"}\n"), (*Inventory).Validate)
	require.Error(t, err)
	for _, want := range []string{
		"images.urlTemplate", "ftp://images/rackroll.iso", "absolute http, https, nfs or cifs URL",
		"images.sha256.4.2.0", "xyz", "64 hexadecimal digits",
		"images.sha256.not-a-version!", "must be a runtime version",
	} {
		require.ErrorContains(t, err, want)
	}
	_, err = ParseValid([]byte(minimalYAML+"images: {urlTemplate: \"http://images/rackroll.iso\"}\n"), (*Inventory).Validate)
	require.ErrorContains(t, err, "must contain {version}")

	// minimalYAML's racks are too small to be valid; the images are fine.
	_, err = ParseValid([]byte(minimalYAML+"images: {urlTemplate: \"https://img.example/rackroll-{version}.iso\", sha256: {\"4.2.0\": "+good+"}}\n"), (*Inventory).Validate)
	require.NotContains(t, err.Error(), "images")
	inv := Inventory{Images: ImagesSpec{URLTemplate: "https://img.example/rackroll-{version}.iso"}}
	require.Equal(t, "https://img.example/rackroll-4.2.0.iso", inv.ImageURL("4.2.0"))
}

func TestFirmwareBaselineProblemsCarryTheirPlace(t *testing.T) {
	y := minimalYAML + `images:
  firmware:
    "4.2.0":
      - match: {manufacturer: "Dell Inc.", model: "PowerEdge R6*"}
        components:
          - {name: BIOS, kind: bios, inventory: "^BIOS$", minimum: "1.14.0", image: "http://fw.example/bios.exe", apply: {method: SimpleUpdate, applyTime: OnReset}}
    "4.3":
      - match: {manufacturer: HPE}
        components:
          - {name: ROM, kind: rom, inventory: "^System ROM$", minimum: "U46 v2.90", image: "http://fw.example/rom.fwpkg", apply: {method: Push}}
`
	_, err := ParseValid([]byte(y), (*Inventory).Validate)
	require.Error(t, err)
	for _, want := range []string{
		`images.firmware.4.3: "4.3" — the key must be a runtime version`,
		`images.firmware.4.3[0].components[0].kind: "rom" — allowed: bios, nic, storage, other, bmc`,
		`images.firmware.4.3[0].components[0].apply.method: "Push" — allowed: SimpleUpdate, MultipartPush`,
	} {
		require.ErrorContains(t, err, want)
	}
	require.NotContains(t, err.Error(), "images.firmware.4.2.0")
	inv, err := ParseInventory([]byte(y))
	require.NoError(t, err, "the shape is right; only the meaning is wrong")
	b := inv.Images.FirmwareBaseline("4.2.0")
	require.Len(t, b, 1)
	require.Equal(t, "OnReset", b[0].Components[0].Apply.ApplyTime)
	require.Nil(t, inv.Images.FirmwareBaseline("4.1.2"))
}

func TestBootModeValidated(t *testing.T) {
	inv, err := ParseInventory([]byte(minimalYAML))
	require.NoError(t, err)
	inv.Images.BootMode = "uefi"
	inv.Racks[0].Servers[0].BMC.BootMode = "BIOS"
	err = inv.Validate()
	require.Error(t, err)
	// Both problems at once, each naming field, value and what is allowed.
	require.Contains(t, err.Error(), `images.bootMode: "uefi" — must be one of UEFI, Legacy`)
	require.Contains(t, err.Error(), `.bmc.bootMode: "BIOS" — must be one of UEFI, Legacy`)

	inv.Images.BootMode, inv.Racks[0].Servers[0].BMC.BootMode = "Legacy", ""
	require.NotContains(t, inv.Validate().Error(), "bootMode") // minimalYAML's racks are too small; the modes are fine
	require.Equal(t, "Legacy", inv.Servers()[0].Server.BMC.BootMode, "a server without its own takes the site's")
	inv.Racks[0].Servers[0].BMC.BootMode = "UEFI"
	require.Equal(t, "UEFI", inv.Servers()[0].Server.BMC.BootMode, "a server's own wins")
	require.Equal(t, "UEFI", BootModeOr(""))
	require.ErrorContains(t, CheckBootMode("uefi"), `bootMode: "uefi"`)
	require.NoError(t, CheckBootMode(""))
}
