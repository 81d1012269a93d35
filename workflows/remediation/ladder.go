package remediation

import (
	"fmt"
	"strings"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/remediate"
	"github.com/rackroll/rackroll/internal/temporalerr"
	"github.com/rackroll/rackroll/workflows/kernel"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/workflow"
)

// remLadder climbs one BMM's remediation ladder: it runs the steps
// remediate.Next asks for, each at most once, and keeps a record of each
// for query `status`. RemediationWorkflow uses it for the BMM's own role;
// KCPFailoverWorkflow for the management ladder of a failed KCP.
type remLadder struct {
	ctx    workflow.Context
	cs     api.ClusterState
	b      model.BMM
	cfg    model.RemediationSpec
	st     *kernel.Steps
	holder string // the lease holder on b, handed to the failover
	// marks: record the ladder's position on b in the ledger after each
	// step (changeDampedLadder).
	marks bool
	// Steps and current are shared with the workflow's status.
	records *[]api.StepRecord
	current *remediate.Step
	outcome *string
	// kept says why the node was not removed: its drain kept the last
	// Ready rackroll worker (internal/workerguard), so the power-off
	// after it must not take that worker down either.
	kept string
}

func newRemLadder(ctx workflow.Context, cs api.ClusterState, b model.BMM, holder string, records *[]api.StepRecord,
	current *remediate.Step, outcome *string) *remLadder {
	return &remLadder{ctx: ctx, cs: cs, b: b, cfg: cs.Remediation, st: kernel.NewSteps(ctx, cs.Cluster.Name, kernel.TargetsFor(cs, b)),
		holder: holder, records: records, current: current, outcome: outcome}
}

// climb runs role's ladder after the results in done (steps already taken
// elsewhere, or by an earlier remediation within the damping window,
// count: each step runs at most once). It returns the outcome and whether
// a recovery step brought the server back.
func (l *remLadder) climb(role model.Role, done []remediate.StepResult) (outcome string, recovered bool) {
	for {
		next, finished, out := remediate.Next(role, done)
		*l.outcome = out
		if finished {
			*l.current = ""
			if len(done) == 0 {
				return out, false
			}
			last := done[len(done)-1]
			return out, last.OK && (last.Step == remediate.Reboot || last.Step == remediate.Reprovision)
		}
		for _, s := range next {
			done = append(done, l.run(s))
			if l.ctx.Err() != nil {
				// Cancelled: the step was cut, and every step after it
				// would fail at once without running — never climb on.
				*l.current, *l.outcome = "", "cancelled during "+string(s)
				return *l.outcome, false
			}
			if l.marks {
				m := remediate.Mark(role, done, workflow.Now(l.ctx))
				l.st.Record(api.BMMPatch{Ladder: &m})
			}
		}
	}
}

// run performs one step and records how it went.
func (l *remLadder) run(s remediate.Step) remediate.StepResult {
	*l.current = s
	rec := api.StepRecord{Step: s, StartedAt: workflow.Now(l.ctx)}
	*l.records = append(*l.records, rec)
	i := len(*l.records) - 1
	var detail string
	var ok bool
	switch s {
	case remediate.Reboot:
		ok, detail = l.reboot()
	case remediate.Reprovision:
		ok, detail = l.reprovision()
	case remediate.MarkUnhealthy:
		ok, detail = l.markUnhealthy()
	case remediate.PowerOff:
		ok, detail = l.powerOff()
	case remediate.Failover:
		ok, detail = l.failover()
	default:
		detail = fmt.Sprintf("step %q is unknown to this worker", s)
	}
	now := workflow.Now(l.ctx)
	(*l.records)[i].OK, (*l.records)[i].Detail, (*l.records)[i].FinishedAt = ok, detail, &now
	*l.current = ""
	return remediate.StepResult{Step: s, OK: ok, Detail: detail}
}

// reboot restarts the server and waits for its node to be Ready, all
// within rebootTimeout. A node Ready with its root filesystem still
// read-only has not recovered: the trigger would only fire again.
func (l *remLadder) reboot() (bool, string) {
	lim := kernel.RemediationLimit(l.cfg.RebootTimeout, "rebootTimeout")
	start := workflow.Now(l.ctx)
	notBack := func(err error) (bool, string) {
		return false, fmt.Sprintf("restart of %s did not bring its node back within %v: %s", l.b.Name, lim, temporalerr.Message(err))
	}
	l.st.Record(api.BMMPatch{DetailedStatusMessage: api.Str("Remediation: rebooting")})
	previous, err := l.st.BootBefore()
	if err != nil {
		return notBack(err)
	}
	res, err := l.st.Restart(lim.Left(l.ctx, start))
	if err != nil {
		return notBack(err)
	}
	ns, err := l.st.WaitBack(kernel.After(previous, res), "", lim.Left(l.ctx, start))
	if err != nil {
		return notBack(err)
	}
	if ns.ReadOnlyRootFS {
		return false, "node " + ns.Node + " is Ready but its root filesystem is still read-only"
	}
	l.st.Record(api.BMMPatch{DetailedStatus: api.Str(model.BMMProvisioned), DetailedStatusMessage: api.Str(""), PowerState: api.Str(model.PowerOn), ReadyState: api.Str(model.ReadyTrue)})
	return true, ""
}

// reprovision reimages the server to the runtime it should run and waits
// for its node, all within reprovisionTimeout.
func (l *remLadder) reprovision() (bool, string) {
	version := kernel.InstallVersion(l.ctx, l.cs, l.b)
	ok, detail := kernel.Provision(l.ctx, l.st, l.cs, version, kernel.RemediationLimit(l.cfg.ReprovisionTimeout, "reprovisionTimeout"))
	return ok, detail
}

// markUnhealthy gives up on the server: the mark (which only a Replace
// clears) goes to the ledger, and a management or compute node is drained
// and deleted from Kubernetes so nothing is scheduled on it. A control-plane
// node is left in place: the failover that follows promotes the spare
// first and then relabels this node, so the active control plane is never
// short of a member in between.
func (l *remLadder) markUnhealthy() (bool, string) {
	l.st.Record(api.BMMPatch{DetailedStatus: api.Str(model.BMMError), MarkUnhealthy: l.mark()})
	if remediate.RoleOf(l.b).IsControlPlane() {
		return true, ""
	}
	ok, detail := remRemoveNode(l.st, l.cfg, kernel.SiteLimits(l.ctx, l.cs))
	if !ok && strings.HasPrefix(detail, notRemoved) {
		l.kept = detail
	}
	return ok, detail
}

// notRemoved starts the detail of a removal its drain refused.
const notRemoved = "node not removed: "

// remRemoveNode drains (best effort, bounded by rebootTimeout: a dead
// kubelet never confirms its pods are gone, and deleting the node lets the
// pod garbage collector finish) and deletes st's node — unless the drain
// refused because the last Ready rackroll worker runs there (the drain's
// rule, internal/workerguard): deleting the node would take that worker
// with it, so the node stays, cordoned, and the detail names the pod.
func remRemoveNode(st *kernel.Steps, cfg model.RemediationSpec, t model.Timeouts) (bool, string) {
	var note string
	lim := kernel.TimeoutLimit(t, "drain")
	if r := kernel.RemediationLimit(cfg.RebootTimeout, "rebootTimeout"); r.D < lim.D {
		lim = r
	}
	if _, err := st.Drain(lim); err != nil {
		if kernel.KeptLastWorker(err) &&
			workflow.GetVersion(st.Ctx, changeRemovalKeepsLastWorker, workflow.DefaultVersion, 1) != workflow.DefaultVersion {
			return false, notRemoved + temporalerr.Message(err)
		}
		note = "; drain: " + temporalerr.Message(err)
	}
	if err := st.DeleteNode(); err != nil {
		msg := temporalerr.Message(err)
		if !strings.HasPrefix(msg, "delete node ") { // the activity's own errors name it already
			msg = "delete node " + st.T.Node + ": " + msg
		}
		return false, msg + note
	}
	return true, ""
}

// powerOff switches a compute server off for good; it was drained and
// deleted already, so there is nothing to shut down gracefully.
func (l *remLadder) powerOff() (bool, string) {
	if l.kept != "" {
		return false, "not powered off: " + strings.TrimPrefix(l.kept, notRemoved)
	}
	if err := l.st.PowerOff(true, kernel.TimeoutLimit(kernel.SiteLimits(l.ctx, l.cs), "powerOff")); err != nil {
		return false, temporalerr.Message(err)
	}
	return true, ""
}

// failover runs KCPFailoverWorkflow as a child. It is abandoned, not
// cancelled, if this remediation ends early: a half-done role swap is
// worse than a finished one.
func (l *remLadder) failover() (bool, string) {
	cctx := workflow.WithChildOptions(l.ctx, workflow.ChildWorkflowOptions{
		WorkflowID:        api.FailoverID(l.cs.Cluster.Name),
		TaskQueue:         api.TaskQueue,
		StaticSummary:     "Fail over KCP " + l.b.Name,
		StaticDetails:     "KCP " + l.b.Name + " did not recover by reboot: the spare joins the control plane, a management server becomes the new spare",
		ParentClosePolicy: enumspb.PARENT_CLOSE_POLICY_ABANDON,
		// A backstop derived from the table (run_limits.go); none before it.
		WorkflowRunTimeout: failoverRun(l.ctx, l.cs),
	})
	var res api.FailoverStatus
	// The failover's management ladder must not reboot it a second time.
	rebooted := false
	for _, r := range *l.records {
		rebooted = rebooted || r.Step == remediate.Reboot
	}
	err := workflow.ExecuteChildWorkflow(cctx, api.KCPFailoverWorkflowName,
		api.FailoverInput{Cluster: l.cs.Cluster.Name, Failed: l.b.Name, Holder: l.holder, Rebooted: rebooted}).Get(l.ctx, &res)
	if err != nil {
		return false, temporalerr.Message(err)
	}
	if res.Error != "" {
		return false, res.Error
	}
	if remediate.RoleOf(l.b) == model.RoleKCPSpare {
		if res.NewSpare == "" {
			return false, "no management server could become the new spare"
		}
		return true, ""
	}
	if !res.Promoted || res.Plan == nil {
		return res.Promoted, ""
	}
	return true, promotedAs(l.cs.Cluster, res.Plan.Spare)
}

// promotedAs names the server a failover promoted for the outcome: the
// spare, or a management server standing in (the spare could not serve,
// or the site keeps none).
func promotedAs(c model.Cluster, name string) string {
	if b, ok := c.BMM(name); ok && remediate.RoleOf(*b) != model.RoleKCPSpare {
		return name + ", a management server standing in"
	}
	return "the spare " + name
}

// mark is the Unhealthy mark this ladder leaves: why (the steps that did
// not bring the server back), when, and which workflow gave up.
func (l *remLadder) mark() *model.UnhealthyMark {
	var tried []string
	for _, r := range *l.records {
		if r.Step == remediate.MarkUnhealthy || r.FinishedAt == nil {
			continue
		}
		t := string(r.Step)
		if r.Detail != "" {
			t += ": " + r.Detail
		}
		tried = append(tried, t)
	}
	why := string(remediate.RoleOf(l.b)) + " remediation gave up"
	if len(tried) > 0 {
		why += " after " + strings.Join(tried, "; ")
	}
	return &model.UnhealthyMark{Reason: why, Since: workflow.Now(l.ctx), By: workflow.GetInfo(l.ctx).WorkflowExecution.ID}
}
