package workflows

import (
	"fmt"
	"time"

	"github.com/rackroll/rackroll/activities/bmc"
	"github.com/rackroll/rackroll/activities/kube"
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/temporalerr"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// Activity receivers, used only as function references.
var (
	ba *bmc.Activities
	ka *kube.Activities
)

// target is where a BMM's steps act: its node and its BMC (address and a
// credentials reference — never the secret).
type target struct {
	BMM      string
	Node     string
	Endpoint bmc.Endpoint
	// Queue is the site task queue its BMC and Kubernetes activities go to
	// ("" for the workflow's own); see route.go.
	Queue string
	// VersionFrom is where its node shows the runtime version.
	VersionFrom model.NodeVersionSource
}

func targetsFor(cs api.ClusterState, b model.BMM) target {
	ref := cs.BMCCredentials[b.BMC.Credentials]
	return target{BMM: b.Name, Node: b.NodeName, Endpoint: bmc.Endpoint{
		BMM: b.Name, Address: b.BMC.Address, CAFile: b.BMC.CAFile, InsecureSkipVerify: b.BMC.InsecureSkipVerify,
		Credentials: bmc.RefOf(ref),
	}, Queue: cs.SiteTaskQueue, VersionFrom: cs.NodeVersion}
}

// steps are the building blocks every BMM workflow is made of. Each runs
// one activity with timeouts fitted to it and records what it changed in
// the ledger, so `starter cluster show` follows along.
type steps struct {
	ctx     workflow.Context
	cluster string
	t       target
}

func newSteps(ctx workflow.Context, cluster string, t target) *steps {
	return &steps{ctx: ctx, cluster: cluster, t: t}
}

// short: API calls that answer at once.
func (s *steps) short(summary string) workflow.Context {
	return onSite(workflow.WithActivityOptions(s.ctx, workflow.ActivityOptions{
		StartToCloseTimeout: time.Minute,
		Summary:             summary,
		RetryPolicy:         &temporal.RetryPolicy{MaximumInterval: 15 * time.Second, MaximumAttempts: 10},
	}), s.t.Queue)
}

// long: waits bounded by their step's limit, heartbeating. The limit
// bounds every attempt together (ScheduleToClose): a transient error or a
// worker crash is retried only within it (the activities are idempotent
// and resume from their heartbeat).
func (s *steps) long(l limit, summary string) workflow.Context {
	return onSite(workflow.WithActivityOptions(s.ctx, workflow.ActivityOptions{
		ScheduleToCloseTimeout: l.d,
		StartToCloseTimeout:    l.d,
		HeartbeatTimeout:       heartbeatTimeout(l),
		Summary:                summary,
		RetryPolicy:            &temporal.RetryPolicy{MaximumInterval: 30 * time.Second, MaximumAttempts: 5},
	}), s.t.Queue)
}

// heartbeatTimeout is how soon a step notices that its worker died: a
// quarter of its limit (at least 10s, at most a minute), so a retry on
// another worker still fits in the limit — with a fixed minute, a 20s
// reprovision never saw its retry.
func heartbeatTimeout(l limit) time.Duration {
	return min(time.Minute, max(l.d/4, 10*time.Second))
}

func (s *steps) record(p api.BMMPatch) {
	p.BMM = s.t.BMM
	if err := ledgerOf(s.cluster).record(s.ctx, p); err != nil {
		workflow.GetLogger(s.ctx).Warn("ledger record failed", "bmm", s.t.BMM, "error", err)
	}
}

func (s *steps) status(detailed, msg string) {
	s.record(api.BMMPatch{DetailedStatus: api.Str(detailed), DetailedStatusMessage: api.Str(msg)})
}

// failed records the failure on the BMM and returns the result to report.
func (s *steps) failed(res api.ServerResult, step string, err error) api.ServerResult {
	res.Error = fmt.Sprintf("%s of %s failed: %v", step, s.t.BMM, temporalerr.Message(err))
	res.Step = step
	s.record(api.BMMPatch{DetailedStatus: api.Str(model.BMMError), DetailedStatusMessage: api.Str(res.Error)})
	return res
}

func (s *steps) cordon() error {
	if err := workflow.ExecuteActivity(s.short("Cordon "+s.t.Node), ka.Cordon, s.t.Node).Get(s.ctx, nil); err != nil {
		return err
	}
	s.record(api.BMMPatch{CordonStatus: api.Str(model.Cordoned)})
	return nil
}

func (s *steps) uncordon() error {
	if err := workflow.ExecuteActivity(s.short("Uncordon "+s.t.Node), ka.Uncordon, s.t.Node).Get(s.ctx, nil); err != nil {
		return err
	}
	s.record(api.BMMPatch{CordonStatus: api.Str(model.Uncordoned)})
	return nil
}

// drain evicts the node's pods; at its limit it proceeds (TimedOut).
// drain evicts the node's pods; at its limit it proceeds (TimedOut).
func (s *steps) drain(l limit) (kube.DrainResult, error) {
	var r kube.DrainResult
	err := s.run(l, "Drain "+s.t.Node, &r, ka.Drain, kube.DrainInput{Node: s.t.Node, Timeout: l.d})
	if s.proceedsAtLimit(err) {
		return kube.DrainResult{TimedOut: true}, nil
	}
	return r, overLimit(err, "drain of "+s.t.Node+" did not end", l)
}

// shutdownVMs stops the node's VMs; at its limit it proceeds (TimedOut).
func (s *steps) shutdownVMs(l limit) (kube.ShutdownResult, error) {
	var r kube.ShutdownResult
	err := s.run(l, "Shut down VMs on "+s.t.Node, &r, ka.ShutdownVMs, kube.ShutdownInput{Node: s.t.Node, Timeout: l.d})
	if s.proceedsAtLimit(err) {
		return kube.ShutdownResult{TimedOut: true}, nil
	}
	return r, overLimit(err, "VM shutdown on "+s.t.Node+" did not end", l)
}

// proceedsAtLimit: a drain or VM shutdown whose limit passed before its
// activity said so itself (a slow answer, an API that never answers) has
// timed out like one that reported it, and the step goes on
// (docs/behaviour.md#time-limits: "proceed anyway"). Histories from before
// the site's limits kept failing the step.
func (s *steps) proceedsAtLimit(err error) bool {
	return isTimeout(err) && workflow.GetVersion(s.ctx, changeSiteLimits, workflow.DefaultVersion, 1) != workflow.DefaultVersion
}

// restart power-cycles the machine; an Unconfirmed result is settled by
// the node's new boot (waitBack).
func (s *steps) restart(l limit) (bmc.PowerResult, error) {
	var r bmc.PowerResult
	err := s.run(l, "Restart "+s.t.BMM, &r, ba.Restart, s.t.Endpoint)
	return r, overLimit(err, "the BMC of "+s.t.BMM+" did not power-cycle it", l)
}

func (s *steps) powerOff(skipShutdown bool, l limit) error {
	err := s.run(l, "Power off "+s.t.BMM, nil, ba.PowerOff, bmc.PowerOffInput{Endpoint: s.t.Endpoint, SkipShutdown: skipShutdown})
	if err == nil {
		s.record(api.BMMPatch{PowerState: api.Str(model.PowerOff)})
	}
	return overLimit(err, "the BMC of "+s.t.BMM+" did not power it off", l)
}

func (s *steps) powerOn(l limit) (bmc.PowerResult, error) {
	var r bmc.PowerResult
	err := s.run(l, "Power on "+s.t.BMM, &r, ba.PowerOn, s.t.Endpoint)
	if err == nil {
		s.record(api.BMMPatch{PowerState: api.Str(model.PowerOn)})
	}
	return r, overLimit(err, "the BMC of "+s.t.BMM+" did not power it on", l)
}

func (s *steps) readNode() (kube.NodeStatus, error) {
	var ns kube.NodeStatus
	err := workflow.ExecuteActivity(s.short("Read node "+s.t.Node), ka.ReadNode, s.t.Node, s.t.VersionFrom).Get(s.ctx, &ns)
	return ns, err
}

func (s *steps) deleteNode() error {
	return workflow.ExecuteActivity(s.short("Delete node "+s.t.Node), ka.DeleteNode, s.t.Node).Get(s.ctx, nil)
}
