// Package firmware is the firmware layer's decisions, with no I/O: the
// baseline a runtime version requires (declared in the inventory next to
// the version's image, images.firmware), its validation, how vendor
// version strings compare, and a server's inventory judged against it
// (docs/firmware.md).
package firmware
