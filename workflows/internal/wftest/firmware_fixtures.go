package wftest

import "github.com/rackroll/rackroll/internal/firmware"

// DellBaseline is the upgrade tests' target (4.2.0) baseline: a BMC
// declared first, to show it goes last, and a BIOS.
func DellBaseline() firmware.Baseline {
	simple := firmware.Apply{Method: firmware.MethodSimpleUpdate}
	return firmware.Baseline{{Match: firmware.Match{Manufacturer: "Dell Inc."}, Components: []firmware.Component{
		{Name: "iDRAC", Kind: firmware.KindBMC, Inventory: "Remote Access Controller", Minimum: "7.00.30.00", Image: "http://fw.example/idrac.exe", Apply: simple},
		{Name: "BIOS", Kind: "bios", Inventory: "^BIOS$", Minimum: "1.13.2", Image: "http://fw.example/bios.exe", Apply: simple},
	}}}
}

// Dell is a Dell server's FirmwareInventory at these BIOS and iDRAC versions.
func Dell(bios, idrac string) firmware.Server {
	return firmware.Server{Manufacturer: "Dell Inc.", Model: "PowerEdge R650", Items: []firmware.Item{
		{ID: "BIOS", Name: "BIOS", Version: bios}, {ID: "iDRAC", Name: "Integrated Dell Remote Access Controller", Version: idrac}}}
}

// Count is how many times call stands in log (FakeSite's call log).
func Count(log []string, call string) int {
	n := 0
	for _, c := range log {
		if c == call {
			n++
		}
	}
	return n
}
