package kernel

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/rackroll/rackroll/activities/etcd"
	"github.com/rackroll/rackroll/activities/kube"
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/cpgate"
	"github.com/rackroll/rackroll/internal/lease"
	"github.com/rackroll/rackroll/internal/temporalerr"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// ea names the etcd activities by reference.
var ea *etcd.Activities

// GateAsk is one question to the live gate from a workflow.
type GateAsk struct {
	Target    string
	Op        lease.Operation
	Promote   bool
	Replacing string
	Removes   bool
}

// LiveGate observes the control plane now and asks cpgate.Decide. Where the
// observation is made: by the requester, here, on the site's task queue,
// just before it asks the ledger for the lease (and again once granted).
// The ledger only checks that the observation it is shown is fresh
// (lease.Request.ObservedAt). Why not the ledger's Update handler: the
// ledger is one workflow for the whole cluster; an observation takes a
// round trip to the site (seconds, up to the etcd dial timeout when a
// member is down) and would hold every other lease, release and record
// behind it, and its activities would grow the ledger's history with
// every request. The requester has to observe again after the grant
// anyway, so it owns the observation; the one-KCP-disruption-at-a-time
// lease rule keeps two requesters from both passing on the same view.
func LiveGate(ctx workflow.Context, cs api.ClusterState, ask GateAsk) (cpgate.Decision, time.Time) {
	if !ask.Op.Disruptive() {
		return cpgate.Decide(cpgate.Input{Target: ask.Target, Operation: ask.Op}), time.Time{}
	}
	members := lease.ControlPlane(cs.Cluster)
	if !ask.Promote && !slices.Contains(members, ask.Target) {
		// Not a member: no observation needed.
		return cpgate.Decide(cpgate.Input{Target: ask.Target, Operation: ask.Op, Cluster: cs.Cluster}), time.Time{}
	}
	if ask.Promote {
		members = append(members, ask.Target)
	}
	obs, err := observeControlPlane(ctx, cs, members)
	if err != nil {
		return cpgate.Decision{Outcome: cpgate.Refuse, Reason: fmt.Sprintf("%s of %s refused: the control plane could not be observed: %s",
			ask.Op, ask.Target, temporalerr.Message(err))}, time.Time{}
	}
	d := cpgate.Decide(cpgate.Input{Target: ask.Target, Operation: ask.Op, Promote: ask.Promote, Replacing: ask.Replacing, Removes: ask.Removes,
		Cluster: cs.Cluster, Observed: obs, Now: workflow.Now(ctx)})
	return d, oldestSeen(obs)
}

// observeControlPlane reads the members' nodes (and etcd, when the site
// exposes it) fresh, and converts them for the gate.
func observeControlPlane(ctx workflow.Context, cs api.ClusterState, bmms []string) (cpgate.Observation, error) {
	var obs cpgate.Observation
	byNode := map[string]string{}
	var nodes []string
	for _, name := range bmms {
		b, ok := cs.Cluster.BMM(name)
		if !ok {
			continue
		}
		n := b.NodeName
		if n == "" {
			n = b.Name
		}
		byNode[n] = b.Name
		nodes = append(nodes, n)
	}
	// Short timeouts, few retries: a stale answer is worthless to the gate,
	// so waiting long for one only delays the refusal.
	opts := workflow.ActivityOptions{
		StartToCloseTimeout: CallAttempt(ctx, cs.Limits(), 3), Summary: fmt.Sprintf("Observe the control plane (%d nodes)", len(nodes)),
		RetryPolicy: &temporal.RetryPolicy{MaximumInterval: 2 * time.Second, MaximumAttempts: 3},
	}
	var ns kube.ControlPlaneNodes
	if err := SiteRead(ctx, cs.SiteTaskQueue, opts, ka.ObserveControlPlane, nodes).Get(ctx, &ns); err != nil {
		return obs, err
	}
	for _, n := range ns.Nodes {
		obs.Nodes = append(obs.Nodes, cpgate.Node{BMM: byNode[n.Node], Node: n.Node, Exists: n.Exists, Ready: n.Ready,
			ReadySince: n.ReadyTransition, Reason: n.ReadyReason, ReadOnlyRootFS: n.ReadOnlyRootFS,
			ReadOnlySince: n.ReadOnlyRootFSSince, SeenAt: ns.SeenAt})
	}
	if cs.ControlPlane == nil || cs.ControlPlane.Etcd == nil {
		return obs, nil
	}
	var eo etcd.Observation
	if err := SiteRead(ctx, cs.SiteTaskQueue, opts, ea.ObserveEtcd, etcd.ObserveInput{Spec: *cs.ControlPlane.Etcd}).Get(ctx, &eo); err != nil {
		return obs, err
	}
	e := &cpgate.Etcd{SeenAt: eo.SeenAt, Alarms: eo.Alarms, Err: eo.Err}
	for _, m := range eo.Members {
		e.Members = append(e.Members, cpgate.EtcdMember{Name: m.Name, Healthy: m.Healthy, Leader: m.Leader, Learner: m.Learner, Err: m.Err})
	}
	obs.Etcd = e
	return obs, nil
}

func oldestSeen(o cpgate.Observation) time.Time {
	var t time.Time
	for _, n := range o.Nodes {
		if t.IsZero() || n.SeenAt.Before(t) {
			t = n.SeenAt
		}
	}
	if o.Etcd != nil && (t.IsZero() || o.Etcd.SeenAt.Before(t)) {
		t = o.Etcd.SeenAt
	}
	return t
}

// GateRefusal is a disruption the live gate refused; callers that pause
// instead of failing (the upgrade) tell it from other refusals.
type GateRefusal struct{ Decision cpgate.Decision }

// Error says the gate refused, and why.
func (g GateRefusal) Error() string { return "live control-plane check: " + g.Decision.Reason }

// GateReason reports whether err is (or wraps) a gate refusal and, if so,
// its reason after where.
func GateReason(err error, where string) (bool, string) {
	var g GateRefusal
	if errors.As(err, &g) {
		return true, where + g.Decision.Reason
	}
	return false, ""
}

// gateOpen runs the gate for a lease request and returns when the site was
// observed, or a GateRefusal. A "move etcd leadership first" answer moves
// it and asks again (once: a second move would chase an election).
func gateOpen(ctx workflow.Context, cs api.ClusterState, req lease.Request, removes bool) (time.Time, error) {
	ask := GateAsk{Target: req.BMM, Op: req.Operation, Removes: removes}
	d, seen := LiveGate(ctx, cs, ask)
	if d.Outcome == cpgate.MoveLeader {
		moved, err := moveLeader(ctx, cs, d)
		if err != nil {
			return seen, GateRefusal{cpgate.Decision{Outcome: cpgate.Refuse, Server: req.BMM,
				Reason: fmt.Sprintf("%s; moving it failed: %s", d.Reason, temporalerr.Message(err))}}
		}
		if moved {
			d, seen = LiveGate(ctx, cs, ask)
		}
	}
	if d.Outcome == cpgate.Refuse {
		return seen, GateRefusal{d}
	}
	return seen, nil
}
