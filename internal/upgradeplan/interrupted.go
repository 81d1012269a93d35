package upgradeplan

import "github.com/rackroll/rackroll/internal/model"

// Option adjusts Build for workflow histories recorded before a rule
// changed.
type Option func(*options)

type options struct{ legacy, retireLast, firmwareRerun bool }

// FirmwareRerun says the target declares a firmware baseline: an upgrade
// to the version the cluster already runs is then no "nothing to
// upgrade" but a run for the firmware alone (Plan.FirmwareOnly): every
// server is at the target and skipped, and those below the baseline get
// it in a window of their own (docs/firmware-replace-upgrade.md#upgrade).
func FirmwareRerun() Option { return func(o *options) { o.firmwareRerun = true } }

// RetireLastKCP is Build as it was before the retiring KCP was chosen in
// the spare's rack: the last KCP still on the old version retires.
func RetireLastKCP() Option { return func(o *options) { o.retireLast = true } }

// LegacyControlPlane is Build as it was before interrupted control-plane
// steps were finished: a resume needs the KCP set full, the KCP left
// mid-step included (Interrupted); a half-done retire is left
// (finishRetire); a spare already on the target is skipped, not promoted.
func LegacyControlPlane() Option { return func(o *options) { o.legacy = true } }

// Interrupted is the KCP a resumed upgrade redoes first when the earlier
// run was interrupted in its step (cancelled, failed, terminated), which
// leaves it Deprovisioning, Provisioning or Error in the ledger: without
// it, a resume would be refused as "KCP set is not full" for ever. The
// re-run disrupts it first, under a lease that leaves it out of the
// full-set rule the same way (lease.MissingKCP(c, it)), and the live gate
// checks the rest of the control plane before its step as before. Only
// that one: a KCP marked Unhealthy, or any other KCP not serving, still
// refuses the plan. steps is the plan's control plane.
func Interrupted(c model.Cluster, steps []KCPStep) []string {
	for _, s := range steps {
		if s.Skip {
			continue
		}
		b, ok := c.BMM(s.BMM)
		if !ok || s.Action == KCPRetire || !b.HasRole(model.RoleKCP) || b.MarkedUnhealthy() {
			return nil
		}
		switch b.DetailedStatus {
		case model.BMMDeprovisioning, model.BMMProvisioning, model.BMMError:
			return []string{s.BMM}
		}
		return nil
	}
	return nil
}

// finishRetire adds, to a control plane whose phase is done, the retire an
// interrupted run left half-way: the last KCP relabelled spare but not
// powered off and recorded Available (docs/behaviour-upgrade.md#upgrade: it waits powered off
// as the spare). Retire is idempotent: its etcd member is gone already,
// the relabel changes nothing.
func finishRetire(c model.Cluster, to string, steps []KCPStep) []KCPStep {
	if len(steps) == 0 || steps[0].Action != KCPUpgradeSpare {
		return steps
	}
	for _, s := range steps {
		if !s.Skip {
			return steps
		}
	}
	b, ok := c.BMM(steps[0].BMM)
	if !ok || atTarget(c, b.Name, to) || b.DetailedStatus == model.BMMAvailable || b.MarkedUnhealthy() {
		return steps
	}
	return append(steps, KCPStep{BMM: b.Name, Action: KCPRetire})
}
