package remediation

import (
	"fmt"
	"strings"
	"time"

	"github.com/rackroll/rackroll/activities/kube"
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/breakglass"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/remediate"
	"github.com/rackroll/rackroll/internal/temporalerr"
	"github.com/rackroll/rackroll/workflows/kernel"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// stormPrefix starts the ledger message the storm guard sets, so the
// monitor clears only a Degraded status that it set itself.
const stormPrefix = "storm guard: "

// round is one look at the cluster. A round that cannot read the ledger or
// the nodes changes nothing (clocks keep their start) and says why in
// Query `status`; the next round tries again.
func (m *monitor) round(ctx workflow.Context) {
	cs, err := kernel.LedgerOf(m.in.Cluster).Read(ctx)
	if err != nil {
		m.st.LastError = "read the ledger: " + temporalerr.Message(err)
		return
	}
	cfg := cs.Remediation
	m.interval = time.Duration(cfg.Interval)
	nodes := make([]string, len(cs.Cluster.BMMs))
	for i, b := range cs.Cluster.BMMs {
		nodes[i] = b.NodeName
	}
	var ns []kube.NodeStatus
	octx := kernel.OnSite(workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: kernel.CallAttempt(ctx, cs.Limits(), 1), Summary: fmt.Sprintf("Observe %d nodes", len(nodes)),
		RetryPolicy: &temporal.RetryPolicy{MaximumInterval: 10 * time.Second, MaximumAttempts: 3},
	}), cs.SiteTaskQueue)
	if err := workflow.ExecuteActivity(octx, ka.ObserveNodes, nodes, cs.NodeVersion).Get(ctx, &ns); err != nil {
		m.st.LastError = "observe nodes: " + temporalerr.Message(err)
		return
	}
	now := workflow.Now(ctx)
	m.st.LastObservation, m.st.LastError = now, ""
	m.recordHealth(ctx, cs.Cluster, ns)
	obs := observations(cs.Cluster, ns)
	m.endProvisioning(ctx, cs.Cluster, obs)
	var due []remediate.Due
	m.clocks, due = remediate.Observe(m.clocks, obs, now, cfg)
	m.st.Clocks = clockStatuses(m.clocks, now, cfg)
	m.reap(ctx)

	unhealthy := remediate.UnhealthyControlPlane(cs.Cluster, obs, m.clocks)
	m.st.UnhealthyControlPlane = unhealthy
	verdicts := remediate.AdmitAll(due, remediate.Situation{Cluster: cs.Cluster, Active: m.activeList(), Leases: cs.Leases,
		UnhealthyControlPlane: unhealthy, MaxConcurrentCompute: cfg.MaxConcurrentCompute})
	m.st.Refusals = []api.Refusal{}
	for _, v := range verdicts {
		reason := v.Decision.Reason
		if v.Decision.Start {
			if reason = m.start(ctx, v.Due); reason == "" {
				continue
			}
		}
		m.st.Refusals = append(m.st.Refusals, api.Refusal{BMM: v.Due.BMM, Role: v.Due.Role, Trigger: v.Due.Trigger, Since: v.Due.Since,
			Reason: stormReason(reason, unhealthy)})
	}
	m.surfaceStorm(ctx, cs.Cluster, unhealthy)
}

// observations joins the ledger and the nodes. A BMM the ledger shows
// powered off (an operator's power-off, or remediation's) has no node
// conditions: a switched-off server is not a sick one.
func observations(c model.Cluster, ns []kube.NodeStatus) []remediate.Observation {
	out := make([]remediate.Observation, 0, len(c.BMMs))
	for i, b := range c.BMMs {
		o := remediate.Observation{BMM: b.Name, Role: remediate.RoleOf(b), Provisioning: b.DetailedStatus == model.BMMProvisioning,
			Marked: b.MarkedUnhealthy()}
		if b.ProvisioningSince != nil {
			o.ProvisioningSince = *b.ProvisioningSince
		}
		if i < len(ns) && b.PowerState != model.PowerOff {
			o.Exists, o.Ready, o.ReadOnlyRootFS = ns[i].Exists, ns[i].Ready, ns[i].ReadOnlyRootFS
		}
		out = append(out, o)
	}
	return out
}

func clockStatuses(clocks []remediate.Clock, now time.Time, cfg model.RemediationSpec) []api.ClockStatus {
	out := make([]api.ClockStatus, 0, len(clocks))
	for _, c := range clocks {
		th := remediate.Threshold(c.Trigger, cfg)
		held := now.Sub(c.Since)
		out = append(out, api.ClockStatus{BMM: c.BMM, Trigger: c.Trigger, Since: c.Since, Held: held, Threshold: th, Due: held >= th})
	}
	return out
}

// stormReason puts the storm guard's refusal in the operator's words.
func stormReason(reason string, unhealthy []string) string {
	if len(unhealthy) > 1 && strings.Contains(reason, "an operator must act") {
		return fmt.Sprintf("storm guard: %d control-plane nodes unhealthy (etcd may be degraded): waiting for an operator; %s", len(unhealthy), reason)
	}
	return reason
}

func (m *monitor) activeList() []remediate.Active {
	out := make([]remediate.Active, 0, len(m.active))
	for _, a := range m.active {
		out = append(out, remediate.Active{BMM: a.rec.BMM, Role: a.rec.Role})
	}
	return out
}

// start starts a RemediationWorkflow child for d and returns "" or why it
// could not. Children are abandoned on close so a continue-as-new (or a
// monitor restart) never cuts a ladder short. A remediation of d.BMM that
// is running already (started by an earlier monitor) is adopted.
func (m *monitor) start(ctx workflow.Context, d remediate.Due) string {
	id := api.RemediationID(m.in.Cluster, d.BMM)
	cctx := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
		WorkflowID:        id,
		TaskQueue:         api.TaskQueue,
		StaticSummary:     fmt.Sprintf("Remediate %s: %s", d.BMM, d.Trigger),
		StaticDetails:     fmt.Sprintf("%s %s: %s since %s", d.Role, d.BMM, d.Trigger, d.Since.UTC().Format(time.RFC3339)),
		ParentClosePolicy: enumspb.PARENT_CLOSE_POLICY_ABANDON,
	})
	fut := workflow.ExecuteChildWorkflow(cctx, api.RemediationWorkflowName,
		api.RemediationInput{Cluster: m.in.Cluster, BMM: d.BMM, Trigger: d.Trigger, Since: d.Since})
	rec := api.ActiveRemediation{BMM: d.BMM, Role: d.Role, Trigger: d.Trigger, Since: d.Since, WorkflowID: id, StartedAt: workflow.Now(ctx)}
	var ex workflow.Execution
	if err := fut.GetChildWorkflowExecution().Get(ctx, &ex); err != nil {
		if temporal.IsWorkflowExecutionAlreadyStartedError(err) {
			m.active = append(m.active, &monChild{rec: rec})
			return ""
		}
		return "could not start " + id + ": " + temporalerr.Message(err)
	}
	rec.RunID = ex.RunID
	m.active = append(m.active, &monChild{rec: rec, fut: fut})
	return ""
}

// reap moves remediations that closed to the recent list. Children of this
// run tell through their future; inherited ones through their workflow
// state (one describe per holder, only while there are any).
func (m *monitor) reap(ctx workflow.Context) {
	var inherited []string
	for _, a := range m.active {
		if a.fut == nil {
			inherited = append(inherited, a.rec.WorkflowID)
		}
	}
	running := map[string]bool{}
	if len(inherited) > 0 {
		var err error
		if running, err = kernel.LedgerOf(m.in.Cluster).Running(ctx, inherited); err != nil {
			running = map[string]bool{}
			for _, id := range inherited {
				running[id] = true // unknown: keep counting it, ask again next round
			}
		}
	}
	keep := m.active[:0]
	for _, a := range m.active {
		var outcome string
		switch {
		case a.fut == nil && running[a.rec.WorkflowID]:
			keep = append(keep, a)
			continue
		case a.fut == nil:
			outcome = "closed; see `starter remediation show --bmm " + a.rec.BMM + "`"
		case !a.fut.IsReady():
			keep = append(keep, a)
			continue
		default:
			var res api.RemediationStatus
			if err := a.fut.Get(ctx, &res); err != nil {
				outcome = "failed: " + temporalerr.Message(err)
			} else {
				outcome = res.Outcome
			}
		}
		now := workflow.Now(ctx)
		m.recent = append(m.recent, api.RemediationRecord{ActiveRemediation: a.rec, ClosedAt: &now, Outcome: outcome})
	}
	m.active = keep
	if n := len(m.recent); n > monitorRecentKept {
		m.recent = append([]api.RemediationRecord(nil), m.recent[n-monitorRecentKept:]...)
	}
}

// surfaceStorm shows the storm guard on the ledger: Degraded with the
// reason while more than one control-plane node is unhealthy, Running again
// once it clears. It only touches a cluster that is Running, or Degraded by
// the storm guard itself: an upgrade's or an operator's status wins.
func (m *monitor) surfaceStorm(ctx workflow.Context, c model.Cluster, unhealthy []string) {
	msg := ""
	if len(unhealthy) > 1 {
		msg = fmt.Sprintf("%s%d control-plane nodes unhealthy (%s) (etcd may be degraded): no automatic control-plane remediation; waiting for an operator",
			stormPrefix, len(unhealthy), strings.Join(unhealthy, ", "))
	}
	m.st.Storm = msg
	ours := c.DetailedStatus == model.ClusterDegraded && strings.HasPrefix(c.DetailedStatusMessage, stormPrefix)
	var p *api.ClusterStatusPatch
	switch {
	case msg != "" && stormResumed(ctx, c, msg):
		// An operator resumed the cluster knowing this very storm (cluster
		// resume): it stays Running until the storm changes.
	case msg != "" && (c.DetailedStatus == model.ClusterRunning || (ours && c.DetailedStatusMessage != msg)):
		p = &api.ClusterStatusPatch{DetailedStatus: model.ClusterDegraded, DetailedStatusMessage: msg}
	case msg == "" && ours:
		p = &api.ClusterStatusPatch{DetailedStatus: model.ClusterRunning, DetailedStatusMessage: "storm guard cleared: at most one control-plane node unhealthy"}
	}
	if p == nil {
		return
	}
	if err := kernel.LedgerOf(m.in.Cluster).SetStatus(ctx, *p); err != nil {
		m.st.LastError = "set the cluster status: " + temporalerr.Message(err)
	}
}

// stormResumed reports whether the cluster was resumed by an operator
// while the storm guard said exactly msg.
func stormResumed(ctx workflow.Context, c model.Cluster, msg string) bool {
	return breakglass.ResumedDuring(c, model.ClusterDegraded, msg) && workflow.GetVersion(ctx, changeStormRespectsResume, workflow.DefaultVersion, 1) == 1
}
