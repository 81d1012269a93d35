package actions

import (
	"fmt"
	"strings"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/firmware"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/temporalerr"
	"github.com/rackroll/rackroll/workflows/kernel"
	"go.temporal.io/sdk/workflow"
)

// Replace checks firmware first (docs/firmware-replace-upgrade.md#replace): the operator
// rules ask, before a Replace after a hardware repair, that "all firmware
// versions align with the versions supported for the corresponding
// runtime". A new system board or NIC comes with whatever firmware the
// part shipped with.

// replaceFirmware is what the check decided.
type replaceFirmware struct {
	// version is the runtime whose baseline applies ("" when none was
	// checked).
	version string
	plan    firmware.Plan
	// skipped: a forced replace skipped the check; refused: the check
	// refused the replace.
	skipped, refused bool
}

// firmwareProbe reads the server's firmware before the lease and refuses
// a Replace below the baseline of the runtime it installs, naming each
// component with its current and required version, unless applyFirmware
// asks for the baseline to be applied first. It reads only. A forced
// replace skips it (the ledger's break-glass act says so). A site with no
// baseline for that runtime is not read at all.
func (a *action) firmwareProbe(ctx workflow.Context, cs api.ClusterState, _ model.BMM) error {
	// No baseline anywhere: nothing to check, and no change recorded
	// (every history from before the check is such a run).
	if len(cs.Firmware) == 0 || workflow.GetVersion(ctx, changeReplaceChecksFirmware, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return nil
	}
	version := kernel.InstallVersion(ctx, cs, a.bm)
	baseline := cs.Firmware[version]
	if baseline == nil {
		return nil
	}
	a.fw.version = version
	if a.in.Force {
		a.fw.skipped = true
		workflow.GetLogger(ctx).Warn("forced replace: firmware check skipped", "bmm", a.bm.Name, "runtime", version, "reason", a.in.Reason, "by", a.in.By)
		return nil
	}
	s, err := kernel.NewSteps(ctx, a.in.Cluster, a.t).ReadFirmware()
	if err != nil {
		a.fw.refused = true
		return &firmware.Refusal{Server: a.bm.Name, Unread: true, Finding: fmt.Sprintf("bmm %s's firmware could not be read to check it against the baseline of runtime %s: %s",
			a.bm.Name, version, temporalerr.Message(err))}
	}
	a.fw.plan = firmware.PlanFor(baseline, s)
	err = firmware.CheckReplace(a.bm.Name, version, a.fw.plan, a.in.ApplyFirmware)
	a.fw.refused = err != nil
	return err
}

// applyFirmware brings the server to the baseline the probe found it
// below (applyFirmware), inside the replace's disruption: after the
// evacuation, before the reinstall. It is bounded by the `firmware` row,
// or by what is left of the replace's own limit when that is less.
func (a *action) applyFirmware() error {
	if len(a.fw.plan.Apply) == 0 {
		return nil
	}
	limit := kernel.TimeoutLimit(a.limits, "firmware")
	if left := a.reimageLimit(); left.D < limit.D {
		limit = left
	}
	a.setStatus(model.BMMDeprovisioning, fmt.Sprintf("%s: applying firmware %s (baseline of runtime %s)",
		a.in.Action, strings.Join(a.fw.plan.Names(), ", "), a.fw.version))
	done, err := a.st.ApplyFirmware(a.fw.plan.Apply, limit)
	a.res.Firmware = kernel.FirmwareDone(done)
	return err
}

// firmwareNote is what the replace's message says of the firmware.
func (a *action) firmwareNote() string {
	switch {
	case a.fw.skipped:
		return fmt.Sprintf("; firmware check against the baseline of runtime %s skipped (--force: %s)", a.fw.version, strings.TrimSpace(a.in.Reason))
	case len(a.res.Firmware) > 0:
		return "; firmware " + strings.Join(a.res.Firmware, ", ")
	}
	return ""
}
