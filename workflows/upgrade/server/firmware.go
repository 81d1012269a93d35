package server

import (
	"fmt"
	"strings"

	"github.com/rackroll/rackroll/activities/bmc"
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/firmware"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/temporalerr"
	"github.com/rackroll/rackroll/workflows/kernel"
	"go.temporal.io/sdk/workflow"
)

// The runtime upgrade updates compute firmware (docs/firmware-replace-upgrade.md#upgrade):
// a server below the target release's baseline gets it inside the
// disruption it is already in — after the drain and the VM shutdown (and
// the live gate's second look), before the reimage — so firmware never
// adds a second drain. A server at the baseline is read and left alone.

// serverFirmware brings the server to the baseline of in.TargetVersion
// within l (the `firmware` row), components in firmware.Order. It returns
// what it did, a line per component, and the components it could not
// judge (named, never applied: nothing would prove them). A read that
// fails, or an update that fails, fails the step: the server counts as
// failed for the upgrade's threshold, like a failed reimage.
func serverFirmware(ctx workflow.Context, st *kernel.Steps, cs api.ClusterState, in api.ServerInput, l kernel.Limit) ([]string, error) {
	baseline := cs.Firmware[in.TargetVersion]
	// No baseline for the target: nothing is read and nothing recorded
	// (every history from before this step is such a run).
	if baseline == nil || workflow.GetVersion(ctx, changeServerFirmware, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return nil, nil
	}
	s, err := st.ReadFirmware()
	if err != nil {
		return nil, fmt.Errorf("its firmware inventory could not be read to check it against the baseline of runtime %s: %s", in.TargetVersion, temporalerr.Message(err))
	}
	p := firmware.PlanFor(baseline, s)
	var notes []string
	for _, r := range p.Unknown {
		notes = append(notes, fmt.Sprintf("%s not judged: %s", r.Component, r.Why))
	}
	if len(p.Apply) == 0 {
		return notes, nil
	}
	st.Status(model.BMMDeprovisioning, fmt.Sprintf("Applying firmware %s (baseline of runtime %s)", strings.Join(p.Names(), ", "), in.TargetVersion))
	done, err := st.ApplyFirmware(p.Apply, l)
	afterBMCFirmware(ctx, in, p.Apply, done)
	return append(kernel.FirmwareDone(done), notes...), err
}

// afterBMCFirmware: once the BMC's own firmware was updated, every
// active BMC keyset's run applies its accounts on that BMC again, as some
// vendors' updates reset them (docs/keysets-bmc.md#a-bmc-that-lost-its-accounts).
func afterBMCFirmware(ctx workflow.Context, in api.ServerInput, comps []firmware.Component, done []bmc.ApplyFirmwareResult) {
	if kernel.BMCUpdated(comps, done) && workflow.GetVersion(ctx, changeServerRechecksAccounts, workflow.DefaultVersion, 1) == 1 {
		kernel.RecheckBMCAccounts(ctx, in.Cluster, in.BMM, "its BMC firmware was updated")
	}
}
