package kubesim

import (
	"k8s.io/apimachinery/pkg/util/uuid"

	corev1 "k8s.io/api/core/v1"
)

// bootInfo is what a kubelet reports about the OS it runs: a boot id that
// is new on every boot (status.nodeInfo.bootID, as Linux's
// /proc/sys/kernel/random/boot_id) and the version of the OS that booted.
// Both change only when the OS boots, never while the machine is off or
// installing, so the node shows the runtime actually running — what
// rackroll waits for after a reimage (docs/production.md#image-contract).
type bootInfo struct {
	ID      string
	Version string
}

func newBoot(version string) bootInfo { return bootInfo{ID: string(uuid.NewUUID()), Version: version} }

// OSImage is the status.nodeInfo.osImage of the lab's runtime version v;
// the pattern `^rackroll (\S+) ` reads v back.
func OSImage(v string) string { return "rackroll " + v + " (lab)" }

// applyBoot puts b into info and reports whether anything changed.
func applyBoot(info *corev1.NodeSystemInfo, b bootInfo) bool {
	if info.BootID == b.ID && info.OSImage == OSImage(b.Version) {
		return false
	}
	info.BootID, info.OSImage = b.ID, OSImage(b.Version)
	return true
}
