// Package upgrade is the runtime upgrade's parent and rack runs:
// RuntimeUpgradeWorkflow (upgrade:<cluster>) runs the phases in order —
// the control plane with its live gate and the retire of the last KCP to
// spare, the management groups, the compute racks — behind the guards
// (docs/behaviour-upgrade.md#guards: image and version-source preflight, the
// canary, capacity before a drain), pauses, continues, cancels and moves
// to a new rackroll build at its safe points; RackUpgradeWorkflow
// (upgrade:<cluster>:unit:<rack>) is one unit and reports its progress.
// Each server is a ServerUpgradeWorkflow run, package upgrade/server,
// started by its name in internal/api: a run of its own, with a change-ID
// list of its own.
package upgrade
