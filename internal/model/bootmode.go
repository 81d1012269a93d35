package model

import "slices"

// The firmware mode a server boots the installer in: Redfish's
// ComputerSystem Boot.BootSourceOverrideMode values (DMTF
// ComputerSystem schema). A UEFI-only installer does not boot on a system
// left in Legacy mode, which is why Ironic sets the mode with every boot
// device; activities/bmc sets it with the one-time boot.
const (
	BootModeUEFI   = "UEFI"
	BootModeLegacy = "Legacy"
	// DefaultBootMode is the mode when the inventory names none.
	DefaultBootMode = BootModeUEFI
)

// BootModes are the values an inventory may name, as Redfish spells them.
var BootModes = []string{BootModeUEFI, BootModeLegacy}

// BootModeOr is mode, or DefaultBootMode when it is empty.
func BootModeOr(mode string) string {
	if mode == "" {
		return DefaultBootMode
	}
	return mode
}

// CheckBootMode is nil for "" (the default) and the values of BootModes.
func CheckBootMode(mode string) error {
	if mode == "" || slices.Contains(BootModes, mode) {
		return nil
	}
	var e ValidationError
	validateBootMode(&e, "bootMode", mode)
	return e.Err()
}

func validateBootMode(e *ValidationError, field, mode string) {
	if mode != "" && !slices.Contains(BootModes, mode) {
		e.Add(field, mode, "must be one of "+joinComma(BootModes)+" (Redfish BootSourceOverrideMode, spelt as Redfish does); empty means "+DefaultBootMode)
	}
}
