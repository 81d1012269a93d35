package redfish

// PowerButton is someone at the rack pressing the server's power button:
// the machine powers on and boots from its disk, as the Redfish reset On
// does, but with no client, session or task. The lab racks a server with
// it (Config.Unracked): the installer has written the OS, the kubelet
// registers its Node once the OS is up. A machine already on is left as
// it is.
func (b *BMC) PowerButton() {
	b.mu.Lock()
	if b.closed || b.phase != phaseOff {
		b.mu.Unlock()
		return
	}
	b.startPowerOnLocked("On")
	b.mu.Unlock()
	b.flush()
}
