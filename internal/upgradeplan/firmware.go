package upgradeplan

import "github.com/rackroll/rackroll/internal/model"

// GetsFirmwareStep says whether the upgrade to `to` runs its firmware step
// on b (docs/firmware-replace-upgrade.md#upgrade): every in-service server it reinstalls,
// and — once a re-run finds it already on the target — every in-service
// server a rack or management stage runs. A control-plane member (active
// KCP or spare) at the target is not: the plan skips its step, and its
// firmware goes through a Replace with --apply-firmware.
func GetsFirmwareStep(b model.BMM, to string) bool {
	if OutOfService(b) != "" {
		return false
	}
	return b.RuntimeVersion != to || FirmwareAtTarget(b)
}

// FirmwareAtTarget: a server already on the target that the upgrade
// still runs, for its firmware only (not a control-plane member).
func FirmwareAtTarget(b model.BMM) bool {
	return !b.HasRole(model.RoleKCP) && !b.HasRole(model.RoleKCPSpare)
}
