// Package upgrade is the runtime upgrade: RuntimeUpgradeWorkflow
// (upgrade:<cluster>), RackUpgradeWorkflow (upgrade:<cluster>:unit:<rack>)
// and ServerUpgradeWorkflow (upgrade:<cluster>:<bmm>).
//
// upgrade.go runs the phases in order (continue, cancel);
// phases.go the control plane, management groups and compute
// racks; kcpgate.go the live gate on KCP steps; retire.go
// retiring the last KCP to spare (kernel.RetireKCP); etcd_members.go
// waiting for etcd members; details.go the UI's Current Details;
// the guards (docs/behaviour.md#guards) are image.go (image
// preflight), canary.go (stop on systemic failure) and
// capacity.go (capacity before drain). rack.go and rack_report.go
// are the rack child and its progress reports; server.go,
// server_firmware.go (the target's firmware inside the server's drain) and
// server_wait_lease.go the server child and waiting out a remediation's
// lease. The parent starts its children by their names in internal/api.
// versions.go lists the change IDs.
package upgrade
