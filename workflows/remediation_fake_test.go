package workflows

import (
	"context"
	"fmt"
	"testing"

	"github.com/rackroll/rackroll/activities/bmc"
	"github.com/rackroll/rackroll/activities/kube"
	"github.com/rackroll/rackroll/activities/ledger"
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/lease"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
)

// remNode is a node as the fake Kubernetes API shows it.
type remNode struct {
	exists  bool
	ready   string
	rofs    bool
	version string
}

// remSite extends fakeSite for the remediation workflows: node conditions
// the monitor observes, BMC power and reimage faults, node deletions, and
// one ordered log of every side effect so tests can check sequences.
type remSite struct {
	*fakeSite
	nodes       map[string]*remNode // by BMM
	rebootFails map[string]bool
	sticky      map[string]bool // conditions survive a reboot and a reimage
	log         []string
	observed    int // ObserveNodes calls
	running     map[string]bool
}

func newRemSite(t *testing.T, path string) *remSite {
	r := &remSite{fakeSite: newFakeSite(t, path), nodes: map[string]*remNode{}, rebootFails: map[string]bool{},
		sticky: map[string]bool{}, running: map[string]bool{}}
	for _, b := range r.st.Cluster.BMMs {
		r.nodes[b.Name] = &remNode{exists: true, ready: model.ReadyTrue, version: b.RuntimeVersion}
	}
	return r
}

func (r *remSite) byNode(node string) string {
	for _, b := range r.st.Cluster.BMMs {
		if b.NodeName == node {
			return b.Name
		}
	}
	return node
}

func (r *remSite) set(bmm string, mod func(n *remNode)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	mod(r.nodes[bmm])
}

func (r *remSite) status(bmm string) kube.NodeStatus {
	n := r.nodes[bmm]
	b := r.bmm(bmm)
	return kube.NodeStatus{Node: b.NodeName, Exists: n.exists, Ready: n.ready, ReadOnlyRootFS: n.rofs, RuntimeVersion: n.version}
}

func (r *remSite) logf(format string, args ...any) {
	r.log = append(r.log, fmt.Sprintf(format, args...))
}

// healed is a node after a good boot: Ready, conditions gone unless sticky.
func (r *remSite) healed(bmm string) {
	n := r.nodes[bmm]
	n.exists = true
	if !r.sticky[bmm] {
		n.ready, n.rofs = model.ReadyTrue, false
	}
}

func (r *remSite) register(env *testsuite.TestWorkflowEnvironment) {
	env.RegisterActivity(la)
	env.RegisterActivity(ka)
	env.RegisterActivity(ba)
	env.OnActivity(la.ReadCluster, mock.Anything, mock.Anything).Return(func(_ context.Context, _ string) (api.ClusterState, error) {
		r.mu.Lock()
		defer r.mu.Unlock()
		st := r.st
		st.Cluster.BMMs = append([]model.BMM(nil), r.st.Cluster.BMMs...)
		for i := range st.Cluster.BMMs {
			st.Cluster.BMMs[i].Roles = append([]model.Role(nil), st.Cluster.BMMs[i].Roles...)
		}
		st.Leases = append([]lease.Lease(nil), r.st.Leases...)
		return st, nil
	})
	env.OnActivity(la.SetClusterStatus, mock.Anything, mock.Anything).Return(func(_ context.Context, in ledger.ClusterStatusInput) error {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.st.Cluster.DetailedStatus, r.st.Cluster.DetailedStatusMessage = in.Status.DetailedStatus, in.Status.DetailedStatusMessage
		r.logf("cluster %s", in.Status.DetailedStatus)
		return nil
	})
	env.OnActivity(la.RecordBMM, mock.Anything, mock.Anything).Return(func(_ context.Context, in ledger.RecordInput) error {
		r.mu.Lock()
		defer r.mu.Unlock()
		applyPatch(r.bmm(in.Patch.BMM), in.Patch)
		if in.Patch.Roles != nil {
			r.logf("role %s %s", in.Patch.BMM, in.Patch.Roles[0])
		}
		if m := in.Patch.DetailedStatusMessage; m != nil && *m == model.UnhealthyMessage {
			r.logf("unhealthy %s", in.Patch.BMM)
		}
		return nil
	})
	env.OnActivity(la.AcquireLease, mock.Anything, mock.Anything).Return(func(_ context.Context, in ledger.AcquireInput) (api.AcquireResult, error) {
		r.mu.Lock()
		defer r.mu.Unlock()
		if err := lease.Check(r.st.Cluster, r.st.Leases, in.Request); err != nil {
			return api.AcquireResult{}, temporal.NewNonRetryableApplicationError(err.Error(), ledger.ErrLeaseRejected, nil)
		}
		r.st.Leases = lease.Grant(r.st.Leases, in.Request, r.bmm(in.Request.BMM).HasRole(model.RoleKCP), env.Now())
		return api.AcquireResult{Holder: in.Request.Holder}, nil
	})
	env.OnActivity(la.ReleaseLease, mock.Anything, mock.Anything).Return(func(_ context.Context, in ledger.ReleaseInput) error {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.st.Leases = lease.Release(r.st.Leases, in.Request.BMM, in.Request.Holder)
		return nil
	})
	env.OnActivity(la.HolderStates, mock.Anything, mock.Anything).Return(func(_ context.Context, ids []string) (map[string]bool, error) {
		r.mu.Lock()
		defer r.mu.Unlock()
		out := map[string]bool{}
		for _, id := range ids {
			out[id] = r.running[id]
		}
		return out, nil
	})
	env.OnActivity(ka.ObserveNodes, mock.Anything, mock.Anything).Return(func(_ context.Context, nodes []string) ([]kube.NodeStatus, error) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.observed++
		out := make([]kube.NodeStatus, len(nodes))
		for i, n := range nodes {
			out[i] = r.status(r.byNode(n))
		}
		return out, nil
	})
	env.OnActivity(ka.ReadNode, mock.Anything, mock.Anything).Return(func(_ context.Context, node string) (kube.NodeStatus, error) {
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.status(r.byNode(node)), nil
	})
	env.OnActivity(ka.WaitNodeReady, mock.Anything, mock.Anything).Return(func(_ context.Context, in kube.WaitReadyInput) (kube.NodeStatus, error) {
		r.mu.Lock()
		defer r.mu.Unlock()
		st := r.status(r.byNode(in.Node))
		if st.IsReady() && (in.Version == "" || st.RuntimeVersion == in.Version) {
			return st, nil
		}
		return st, temporal.NewNonRetryableApplicationError(fmt.Sprintf("node %s not Ready within %v: %s", in.Node, in.Timeout, st), kube.ErrNodeNotReady, nil)
	})
	env.OnActivity(ka.Cordon, mock.Anything, mock.Anything).Return(nil)
	env.OnActivity(ka.Drain, mock.Anything, mock.Anything).Return(func(_ context.Context, in kube.DrainInput) (kube.DrainResult, error) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.logf("drain %s", r.byNode(in.Node))
		return kube.DrainResult{Completed: true}, nil
	})
	env.OnActivity(ka.DeleteNode, mock.Anything, mock.Anything).Return(func(_ context.Context, node string) error {
		r.mu.Lock()
		defer r.mu.Unlock()
		b := r.byNode(node)
		r.nodes[b].exists = false
		r.logf("delete-node %s", b)
		return nil
	})
	env.OnActivity(ba.Restart, mock.Anything, mock.Anything).Return(func(_ context.Context, ep bmc.Endpoint) error {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.logf("restart %s", ep.BMM)
		if r.rebootFails[ep.BMM] {
			return temporal.NewNonRetryableApplicationError("The system did not power on", bmc.ErrTypePowerFailed, nil)
		}
		r.healed(ep.BMM)
		return nil
	})
	env.OnActivity(ba.PowerOff, mock.Anything, mock.Anything).Return(func(_ context.Context, in bmc.PowerOffInput) error {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.logf("power-off %s", in.BMM)
		r.nodes[in.BMM].ready = model.ReadyUnknown
		return nil
	})
	env.OnActivity(ba.Reimage, mock.Anything, mock.Anything).Return(func(_ context.Context, in bmc.ReimageInput) (bmc.ReimageResult, error) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.logf("reimage %s %s", in.BMM, in.Version)
		if msg := r.failing[in.BMM]; msg != "" {
			return bmc.ReimageResult{}, temporal.NewNonRetryableApplicationError(msg, bmc.ErrTypeReimageFailed, nil)
		}
		r.healed(in.BMM)
		r.nodes[in.BMM].version = in.Version
		return bmc.ReimageResult{Version: in.Version, Reimaged: true}, nil
	})
}

// fmtSscanRole parses a "role <bmm> <role>" log line.
func fmtSscanRole(line string, bmm, role *string) (int, error) {
	var kind string
	n, err := fmt.Sscan(line, &kind, bmm, role)
	if err == nil && kind != "role" {
		return n, fmt.Errorf("not a role change")
	}
	return n, err
}
