// Package server is ServerUpgradeWorkflow (upgrade:<cluster>:<bmm>), one
// server of a runtime upgrade: under a disruption lease (waiting out a
// remediation that holds it), evacuate (kernel), the live gate's second
// look, firmware to the target's baseline, reimage judged in band,
// uncordon, VMs back; a server already at the target but below its
// baseline gets the firmware in a window of its own. It is a run of its
// own, so its change IDs are listed apart from the parent's
// (docs/design.md#change-ids).
package server
