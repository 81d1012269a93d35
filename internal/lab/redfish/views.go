package redfish

// Redfish views of the machine.

func (m *machine) powerState() string {
	switch m.phase {
	case phaseOff:
		return "Off"
	case phasePoweringOn:
		return "PoweringOn"
	case phasePoweringOff:
		return "PoweringOff"
	}
	return "On"
}

// bootProgress is BootProgress.LastState by the profile: absent (""), the
// DMTF states of a BMC that sees the OS ("full"), or POST-time values only
// ("post": Supermicro stays at SystemHardwareInitializationComplete once
// POST is past, whatever the OS does).
func (b *BMC) bootProgress() string {
	switch b.prof.BootProgress {
	case "full":
		return b.machine.bootProgress()
	case "post":
		if b.phase == phaseOff || b.phase == phasePoweringOn {
			return "None"
		}
		return "SystemHardwareInitializationComplete"
	}
	return ""
}

func (m *machine) bootProgress() string {
	switch m.phase {
	case phaseBooting, phaseReimaging:
		return "OSBootStarted"
	case phaseRunning:
		return "OSRunning"
	case phaseNoOS:
		if m.inSetup {
			return "SetupEntered"
		}
		return "SystemHardwareInitializationComplete"
	}
	return "None"
}

// statusState is the System's Status.State. Vendors show Enabled when on
// and StandbyOffline when off; the helpful profile also shows Starting
// while it boots and Updating while it reimages.
func (b *BMC) statusState() string {
	if b.prof.Helpful {
		return b.machine.statusState()
	}
	if b.phase == phaseOff {
		return "StandbyOffline"
	}
	return "Enabled"
}

// health: only the helpful profile knows an install failed; a vendor's BMC
// sees healthy hardware.
func (b *BMC) health() string {
	if b.prof.Helpful {
		return b.machine.health()
	}
	return "OK"
}

func (m *machine) statusState() string {
	switch m.phase {
	case phaseOff:
		return "StandbyOffline"
	case phasePoweringOn, phaseBooting:
		return "Starting"
	case phaseReimaging:
		return "Updating"
	}
	return "Enabled"
}

func (m *machine) health() string {
	if m.reimageFailed {
		return "Critical"
	}
	return "OK"
}
