package remediation

import (
	"errors"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/lease"
	"github.com/rackroll/rackroll/internal/metrics"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/remediate"
	"github.com/rackroll/rackroll/internal/temporalerr"
	"github.com/rackroll/rackroll/workflows/kernel"
	"go.temporal.io/sdk/workflow"
)

// RemediationWorkflow remediates one BMM (id remediate:<cluster>:<bmm>;
// docs/behaviour.md#remediation): it takes a disruption lease on the
// BMM and climbs its role's ladder, each step at most once — compute: one
// reprovision, then marked Unhealthy, removed from Kubernetes and powered
// off; management: a reboot, a reprovision, then marked Unhealthy; KCP and
// spare: a reboot, then marked Unhealthy and KCPFailoverWorkflow. A BMM
// marked Unhealthy stays so until a BMM Replace action clears it.
//
// A refused lease is not a failure of the workflow: it ends with the
// reason (Refused), and the monitor asks again next round if the trigger
// still holds.
func RemediationWorkflow(ctx workflow.Context, in api.RemediationInput) (api.RemediationStatus, error) {
	st := api.RemediationStatus{Cluster: in.Cluster, BMM: in.BMM, Trigger: in.Trigger, Since: in.Since, StartedAt: workflow.Now(ctx)}
	if err := workflow.SetQueryHandler(ctx, api.QueryStatus, func() (api.RemediationStatus, error) { return st, nil }); err != nil {
		return st, err
	}
	finish := func(outcome string) (api.RemediationStatus, error) {
		now := workflow.Now(ctx)
		st.Outcome, st.Finished, st.FinishedAt, st.Step = outcome, true, &now, ""
		metrics.Remediated(workflow.GetMetricsHandler(ctx), in.Cluster, string(st.Role), st.Refused != "", st.Recovered)
		return st, nil
	}
	holder := workflow.GetInfo(ctx).WorkflowExecution.ID
	h, stage, err := kernel.LedgerOf(in.Cluster).Open(ctx, kernel.Opening{
		Req: lease.Request{BMM: in.BMM, Holder: holder, Operation: lease.OpRemediation, AllowDegraded: true},
		Check: func(_ api.ClusterState, bm model.BMM) error {
			st.Role = remediate.RoleOf(bm)
			if bm.MarkedUnhealthy() {
				return errors.New("already marked Unhealthy: a BMM Replace action returns it to service")
			}
			// The ledger may have moved on since the monitor decided: a
			// provisioning that finished meanwhile (say a reimage that outlived
			// the threshold while a crashed worker's activity waited out its
			// heartbeat) needs no reprovisioning.
			if in.Trigger == remediate.ProvisioningTimeout {
				return provisioningStillDue(ctx, bm)
			}
			return nil
		}})
	switch stage {
	case kernel.OpenRead:
		st.Refused = "read the ledger: " + temporalerr.Message(err)
	case kernel.OpenPrecheck:
		st.Refused = err.Error()
	case kernel.OpenLease:
		st.Refused = "no disruption lease: " + temporalerr.Message(err)
	}
	if stage != kernel.Opened {
		return finish("not started: " + st.Refused)
	}
	// Released however this ends, even when cancelled.
	defer h.Release()

	l := newRemLadder(ctx, h.CS, h.BM, holder, &st.Steps, &st.Step, &st.Outcome)
	if l.marks = workflow.GetVersion(ctx, changeDampedLadder, workflow.DefaultVersion, 1) == 1; l.marks {
		st.Continued = remediate.Resume(h.BM.Ladder, st.Role, workflow.Now(ctx), dampingWindow(h.CS.Remediation))
	}
	outcome, recovered := l.climb(st.Role, st.Continued)
	st.Recovered = recovered
	return finish(outcome)
}

// provisioningStillDue is the provisioning trigger's re-check once the
// lease is held: the ledger may have moved on since the monitor decided (a
// provisioning that finished meanwhile needs no remediation). Since the
// ledger records the provisioning start, that is what is read; histories
// before it read the Provisioning status.
func provisioningStillDue(ctx workflow.Context, bm model.BMM) error {
	if workflow.GetVersion(ctx, changeRemediationProvisioningSince, workflow.DefaultVersion, 1) == 1 {
		if bm.ProvisioningSince == nil && bm.DetailedStatus != model.BMMProvisioning {
			return errors.New("provisioning finished before the remediation started (its node was seen Ready; detailedStatus " + bm.DetailedStatus + ")")
		}
		return nil
	}
	if bm.DetailedStatus != model.BMMProvisioning &&
		workflow.GetVersion(ctx, changeRemediationRecheckProvisioning, workflow.DefaultVersion, 1) == 1 {
		return errors.New("provisioning finished before the remediation started (detailedStatus " + bm.DetailedStatus + ")")
	}
	return nil
}

// dampingWindow is the ledger's, or the default for a ledger registered
// before the setting existed.
func dampingWindow(cfg model.RemediationSpec) time.Duration {
	return time.Duration(cfg.WithDefaults().DampingWindow)
}
