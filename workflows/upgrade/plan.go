package upgrade

import (
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/upgradeplan"
	"go.temporal.io/sdk/workflow"
)

// planFrom plans the upgrade on the ledger cs (docs/behaviour-upgrade.md#upgrade):
// a re-run of the same target resumes (Plan.Resume). The status takes the
// strategy with its defaults, also when the plan is refused.
func (u *upgrade) planFrom(ctx workflow.Context, cs api.ClusterState) (upgradeplan.Plan, error) {
	resume := cs.UpgradeTarget == u.in.TargetVersion
	var opts []upgradeplan.Option
	if workflow.GetVersion(ctx, changeUpgradeResumeRedoesInterruptedKcp, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		opts = append(opts, upgradeplan.LegacyControlPlane())
	}
	if workflow.GetVersion(ctx, changeRetireInSparesRack, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		opts = append(opts, upgradeplan.RetireLastKCP())
	}
	// The version the cluster already runs, with a firmware baseline: a
	// run for the firmware alone (docs/firmware-replace-upgrade.md#upgrade).
	if cs.Cluster.RuntimeVersion == u.in.TargetVersion && len(cs.Firmware[u.in.TargetVersion]) > 0 &&
		workflow.GetVersion(ctx, changeFirmwareRerun, workflow.DefaultVersion, 1) == 1 {
		opts = append(opts, upgradeplan.FirmwareRerun())
	}
	p, err := upgradeplan.Build(cs.Cluster, u.in.TargetVersion, u.in.UpdateStrategy, resume, opts...)
	u.st.Strategy = p.Strategy
	return p, err
}
