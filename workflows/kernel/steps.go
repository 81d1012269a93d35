package kernel

import (
	"errors"
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

// Target is where a BMM's steps act: its node and its BMC (address and a
// credentials reference — never the secret).
type Target struct {
	BMM      string
	Node     string
	Endpoint bmc.Endpoint
	// Queue is the site task queue its BMC and Kubernetes activities go to
	// ("" for the workflow's own); see route.go.
	Queue string
	// VersionFrom is where its node shows the runtime version.
	VersionFrom model.NodeVersionSource
	// Limits is the time-limit table its waits are bounded by (bounds.go).
	Limits model.Timeouts
}

// TargetsFor is the Target of BMM b in the ledger cs: its node, its BMC
// with the credential reference, and the site's task queue.
func TargetsFor(cs api.ClusterState, b model.BMM) Target {
	ref := cs.BMCCredentials[b.BMC.Credentials]
	return Target{BMM: b.Name, Node: b.NodeName, Endpoint: bmc.Endpoint{
		BMM: b.Name, Address: b.BMC.Address, CAFile: b.BMC.CAFile, InsecureSkipVerify: b.BMC.InsecureSkipVerify,
		Credentials: bmc.RefOf(ref), BootMode: b.BMC.BootMode,
	}, Queue: cs.SiteTaskQueue, VersionFrom: cs.NodeVersion, Limits: cs.Limits()}
}

// Steps are the building blocks every BMM workflow is made of. Each runs
// one activity with timeouts fitted to it and records what it changed in
// the ledger, so `starter cluster show` follows along.
type Steps struct {
	Ctx     workflow.Context
	cluster string
	T       Target
}

// NewSteps are the steps on t for a workflow of cluster, running in ctx.
func NewSteps(ctx workflow.Context, cluster string, t Target) *Steps {
	return &Steps{Ctx: ctx, cluster: cluster, T: t}
}

// short: API calls that answer at once.
func (s *Steps) short(summary string) workflow.Context {
	return OnSite(workflow.WithActivityOptions(s.Ctx, workflow.ActivityOptions{
		StartToCloseTimeout: CallAttempt(s.Ctx, s.T.Limits, 1),
		Summary:             summary,
		RetryPolicy:         &temporal.RetryPolicy{MaximumInterval: callBackoff, MaximumAttempts: callAttempts},
	}), s.T.Queue)
}

// long: waits bounded by their step's limit, heartbeating. The limit
// bounds every attempt together (ScheduleToClose): a transient error or a
// worker crash is retried only within it (the activities are idempotent
// and resume from their heartbeat).
func (s *Steps) long(l Limit, summary string) workflow.Context {
	return OnSite(workflow.WithActivityOptions(s.Ctx, workflow.ActivityOptions{
		ScheduleToCloseTimeout: l.D,
		StartToCloseTimeout:    l.D,
		HeartbeatTimeout:       heartbeatTimeout(l),
		Summary:                summary,
		RetryPolicy:            &temporal.RetryPolicy{MaximumInterval: 30 * time.Second, MaximumAttempts: 5},
	}), s.T.Queue)
}

// heartbeatTimeout is how soon a step notices that its worker died: a
// quarter of its limit (at least 10s, at most a minute), so a retry on
// another worker still fits in the limit — with a fixed minute, a 20s
// reprovision never saw its retry.
func heartbeatTimeout(l Limit) time.Duration {
	return min(time.Minute, max(l.D/4, 10*time.Second))
}

// Record writes p for the steps' BMM to the ledger; a failed write is
// logged, not returned.
func (s *Steps) Record(p api.BMMPatch) {
	p.BMM = s.T.BMM
	if err := LedgerOf(s.cluster).Record(s.Ctx, p); err != nil {
		workflow.GetLogger(s.Ctx).Warn("ledger record failed", "bmm", s.T.BMM, "error", err)
	}
}

// Status records the BMM's detailed status and its message.
func (s *Steps) Status(detailed, msg string) {
	s.Record(api.BMMPatch{DetailedStatus: api.Str(detailed), DetailedStatusMessage: api.Str(msg)})
}

// Failed records the failure on the BMM and returns the result to report.
func (s *Steps) Failed(res api.ServerResult, step string, err error) api.ServerResult {
	res.Error = fmt.Sprintf("%s of %s failed: %v", step, s.T.BMM, temporalerr.Message(err))
	res.Step = step
	s.Record(api.BMMPatch{DetailedStatus: api.Str(model.BMMError), DetailedStatusMessage: api.Str(res.Error)})
	return res
}

// Cordon cordons the node and records it.
func (s *Steps) Cordon() error {
	if err := workflow.ExecuteActivity(s.short("Cordon "+s.T.Node), ka.Cordon, s.T.Node).Get(s.Ctx, nil); err != nil {
		return err
	}
	s.Record(api.BMMPatch{CordonStatus: api.Str(model.Cordoned)})
	return nil
}

// Uncordon uncordons the node and records it.
func (s *Steps) Uncordon() error {
	if err := workflow.ExecuteActivity(s.short("Uncordon "+s.T.Node), ka.Uncordon, s.T.Node).Get(s.Ctx, nil); err != nil {
		return err
	}
	s.Record(api.BMMPatch{CordonStatus: api.Str(model.Uncordoned)})
	return nil
}

// Drain evicts the node's pods; at its limit it proceeds (TimedOut),
// except that it never evicts the last Ready rackroll worker: it fails
// then (KeptLastWorker), whichever workflow drains.
func (s *Steps) Drain(l Limit) (kube.DrainResult, error) {
	var r kube.DrainResult
	err := s.run(l, "Drain "+s.T.Node, &r, ka.Drain, kube.DrainInput{Node: s.T.Node, Timeout: l.D})
	if s.proceedsAtLimit(err) {
		return kube.DrainResult{TimedOut: true}, nil
	}
	return r, overLimit(err, "drain of "+s.T.Node+" did not end", l)
}

// ShutdownVMs stops the node's VMs; at its limit it proceeds (TimedOut).
func (s *Steps) ShutdownVMs(l Limit) (kube.ShutdownResult, error) {
	var r kube.ShutdownResult
	err := s.run(l, "Shut down VMs on "+s.T.Node, &r, ka.ShutdownVMs, kube.ShutdownInput{Node: s.T.Node, Timeout: l.D})
	if s.proceedsAtLimit(err) {
		return kube.ShutdownResult{TimedOut: true}, nil
	}
	return r, overLimit(err, "VM shutdown on "+s.T.Node+" did not end", l)
}

// proceedsAtLimit: a drain or VM shutdown whose limit passed before its
// activity said so itself (a slow answer, an API that never answers) has
// timed out like one that reported it, and the step goes on
// (docs/behaviour.md#time-limits: "proceed anyway"). So has one whose last
// attempt ended with its own context and left no room for another
// (ranOutOfTime; a loaded worker sees its deadline before the server
// does). Histories from before the site's limits kept failing the step,
// and from before changeDrainOutOfTime failed on the second case.
func (s *Steps) proceedsAtLimit(err error) bool {
	switch {
	case isTimeout(err):
	case ranOutOfTime(err) && workflow.GetVersion(s.Ctx, changeDrainOutOfTime, workflow.DefaultVersion, 1) != workflow.DefaultVersion:
	default:
		return false
	}
	return workflow.GetVersion(s.Ctx, changeSiteLimits, workflow.DefaultVersion, 1) != workflow.DefaultVersion
}

// Restart power-cycles the machine; an Unconfirmed result is settled by
// the node's new boot (waitBack).
func (s *Steps) Restart(l Limit) (bmc.PowerResult, error) {
	var r bmc.PowerResult
	err := s.run(l, "Restart "+s.T.BMM, &r, ba.Restart, s.T.Endpoint)
	return r, overLimit(err, "the BMC of "+s.T.BMM+" did not power-cycle it", l)
}

// PowerOff powers the machine off through its BMC (within l) and records it.
func (s *Steps) PowerOff(skipShutdown bool, l Limit) error {
	err := s.run(l, "Power off "+s.T.BMM, nil, ba.PowerOff, bmc.PowerOffInput{Endpoint: s.T.Endpoint, SkipShutdown: skipShutdown})
	if err == nil {
		s.Record(api.BMMPatch{PowerState: api.Str(model.PowerOff)})
	}
	return overLimit(err, "the BMC of "+s.T.BMM+" did not power it off", l)
}

// PowerOn powers the machine on through its BMC (within l) and records it.
func (s *Steps) PowerOn(l Limit) (bmc.PowerResult, error) {
	var r bmc.PowerResult
	err := s.run(l, "Power on "+s.T.BMM, &r, ba.PowerOn, s.T.Endpoint)
	if err == nil {
		s.Record(api.BMMPatch{PowerState: api.Str(model.PowerOn)})
	}
	return r, overLimit(err, "the BMC of "+s.T.BMM+" did not power it on", l)
}

// ReadNode reads the node's status from the Kubernetes API.
func (s *Steps) ReadNode() (kube.NodeStatus, error) {
	var ns kube.NodeStatus
	err := workflow.ExecuteActivity(s.short("Read node "+s.T.Node), ka.ReadNode, s.T.Node, s.T.VersionFrom).Get(s.Ctx, &ns)
	return ns, err
}

// DeleteNode deletes the node object from the Kubernetes API.
func (s *Steps) DeleteNode() error {
	return workflow.ExecuteActivity(s.short("Delete node "+s.T.Node), ka.DeleteNode, s.T.Node).Get(s.Ctx, nil)
}

// KeptLastWorker: a drain failed because it kept the last Ready rackroll
// worker on the node (kube.ErrLastWorker; the rule is internal/workerguard,
// applied by the drain activity). Whatever was to follow the drain —
// a reimage, a deletion, a power-off — must not run.
func KeptLastWorker(err error) bool {
	var ae *temporal.ApplicationError
	return errors.As(err, &ae) && ae.Type() == kube.ErrLastWorker
}
