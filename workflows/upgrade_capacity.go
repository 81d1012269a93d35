package workflows

import (
	"time"

	"github.com/rackroll/rackroll/activities/kube"
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/capacity"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/temporalerr"
	"github.com/rackroll/rackroll/internal/upgradeplan"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// capacityGuard runs before a batch of servers is drained (a rack's first
// wave, a management stage; docs/behaviour.md#guards): it asks whether
// the pods the drain evicts can land on the nodes that stay up. When they
// cannot, capacityPolicy Warn proceeds and the status names the pods that
// will be Pending; Pause pauses before the drain, naming the unit, the
// shortfall and the pods. It returns true when the operator cancelled.
func (u *upgrade) capacityGuard(ctx workflow.Context, batch upgradeplan.Rack, unit *api.UnitStatus) (bool, error) {
	if workflow.GetVersion(ctx, "capacity-guard", workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return false, nil
	}
	var nodes []string
	for _, s := range batch.FirstWave() {
		if n := u.nodeOf[s]; n != "" {
			nodes = append(nodes, n)
		}
	}
	if len(nodes) == 0 {
		return false, nil
	}
	actx := onSite(workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: time.Minute,
		Summary:             "Check capacity for " + batch.Name,
		RetryPolicy:         &temporal.RetryPolicy{MaximumInterval: 10 * time.Second, MaximumAttempts: 3},
	}), u.siteQueue)
	var r capacity.Report
	check := api.CapacityCheck{Unit: batch.Name}
	if err := workflow.ExecuteActivity(actx, ka.CheckCapacity, kube.CapacityInput{Nodes: nodes}).Get(ctx, &r); err != nil {
		// A guard that cannot see does not stop the upgrade; it says so.
		check.Message = batch.Name + ": capacity not checked: " + temporalerr.Message(err)
		u.st.Capacity = append(u.st.Capacity, check)
		u.show(ctx)
		return false, nil
	}
	check.Fits, check.Message, check.Pending = r.Fits(), r.Describe(batch.Name), r.Pending
	u.st.Capacity = append(u.st.Capacity, check)
	u.show(ctx)
	if r.Fits() || u.plan.Strategy.CapacityPolicy != model.CapacityPause || u.cancelled {
		return false, nil
	}
	prev := unit.State
	unit.State = api.StatePaused
	cancelled, err := u.pause(ctx, unit, "not enough room to drain "+check.Message+
		". Make room (or accept the Pending pods), then continue-update; cancel-update stops")
	unit.State = prev
	return cancelled, err
}
