package redfish

func init() { register("noinventory", noinventory) }

// noinventory: openstack/sushy-tools' firmware shape, as OpenStack tests
// Ironic's redfish firmware interface with it over libvirt. Its
// UpdateService links a FirmwareInventory it does not serve (404), so the
// versions show only in the System's BiosVersion and the Manager's
// FirmwareVersion, which a SimpleUpdate changes (sushy-tools'
// update_service.py raises BiosVersion). Everything else is the sushy
// profile's: the dmtf shape, a one-time boot kept Continuous.
func noinventory() Profile {
	p := sushy()
	p.Name = "noinventory"
	p.NoFirmwareInventory = true
	p.BiosVersion, p.Firmware = "1.0.0", "1.00" // sushy-tools' defaults
	return p
}
