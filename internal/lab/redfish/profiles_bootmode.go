package redfish

import "github.com/rackroll/rackroll/internal/lab/events"

// Boot-mode profiles: a system whose override mode defaults to Legacy and
// boots the (UEFI-only) installer only in UEFI mode, and one that has no
// BootSourceOverrideMode at all. Learnt from Ironic, which sets the mode
// with every boot device because "Some BMCs reset it to default (BIOS)
// when changing the boot device" (ironic/drivers/modules/redfish/
// management.py), and from the DMTF ComputerSystem schema, where the
// property is optional.
func init() {
	register("bootmode-legacy", func() Profile {
		p := dmtf()
		p.Name, p.BootModeDefault, p.BootModes = "bootmode-legacy", "Legacy", []string{"Legacy", "UEFI"}
		return p
	})
	register("bootmode-absent", func() Profile {
		p := dmtf()
		p.Name, p.NoBootMode = "bootmode-absent", true
		return p
	})
}

func (p *Profile) bootModeDefault() string {
	if p.BootModeDefault == "" || p.NoBootMode {
		return "UEFI"
	}
	return p.BootModeDefault
}

// bootModes is what a PATCH may set: the advertised list, else both.
func (p *Profile) bootModes() []string {
	if len(p.BootModes) > 0 {
		return p.BootModes
	}
	return []string{"UEFI", "Legacy"}
}

// showBootMode adds the mode (and its allowable values) to a System's Boot.
func (b *BMC) showBootMode(boot doc) {
	if b.prof.NoBootMode {
		return
	}
	boot["BootSourceOverrideMode"] = b.override.mode
	if len(b.prof.BootModes) > 0 {
		boot["BootSourceOverrideMode@Redfish.AllowableValues"] = b.prof.BootModes
	}
}

// bootsInstallerLocked: the lab's installers are UEFI-only, so a boot of
// the virtual CD in Legacy mode finds nothing to boot and the firmware
// goes on to the disk (the old system boots again; the install never
// happens).
func (b *BMC) bootsInstallerLocked(target, mode string) bool {
	if mode == "UEFI" {
		return true
	}
	b.emitLocked(events.BootSkipped, map[string]any{"target": target, "mode": mode,
		"reason": "the installer boots only in UEFI mode"})
	return false
}
