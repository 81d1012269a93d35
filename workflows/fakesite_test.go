package workflows

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/rackroll/rackroll/activities/bmc"
	"github.com/rackroll/rackroll/activities/kube"
	"github.com/rackroll/rackroll/activities/ledger"
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/lease"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/placement"
	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
)

// fakeSite stands in for the ledger, the BMCs and the Kubernetes API in the
// SDK test environment: it keeps the cluster state and records every
// disruptive step so tests can check order and overlap.
type fakeSite struct {
	mu       sync.Mutex
	st       api.ClusterState
	reimages []string          // BMMs in reimage order
	failing  map[string]string // BMM -> reimage error
	cordoned map[string]bool
	inFlight map[string]int // rack -> reimages in flight
	maxRack  map[string]int
	racks    map[string]bool // racks with a reimage in flight
	overlap  bool            // two racks reimaging at once
	kcpOut   int
	maxKCP   int
	drains   []kube.DrainInput
	vmStops  []kube.ShutdownInput
	// slowTenants makes drains and VM shutdowns run out of time.
	slowTenants bool
	// emit, when set, receives what the lab's event log would record
	// (property_events_test.go); called with mu held.
	emit func(kind, bmm, rack string, detail map[string]any)
}

func newFakeSite(t *testing.T, path string) *fakeSite {
	t.Helper()
	inv, err := model.LoadInventory(path)
	require.NoError(t, err)
	placed, err := placement.Place(inv)
	require.NoError(t, err)
	f := &fakeSite{failing: map[string]string{}, cordoned: map[string]bool{}, inFlight: map[string]int{}, maxRack: map[string]int{}, racks: map[string]bool{}}
	f.st.Cluster = model.Cluster{Name: inv.Cluster, RuntimeVersion: inv.RuntimeVersion, DetailedStatus: model.ClusterRunning}
	f.st.ImageURLTemplate = inv.ImageURL("{version}")
	f.st.Remediation = inv.Remediation.WithDefaults()
	roles := map[string]placement.Assignment{}
	for _, a := range placed {
		roles[a.Name] = a
	}
	for _, ref := range inv.Servers() {
		a := roles[ref.Server.Name]
		f.st.Cluster.BMMs = append(f.st.Cluster.BMMs, model.BMM{Name: ref.Server.Name, Rack: ref.Rack, Roles: []model.Role{a.Role},
			ManagementGroup: a.ManagementGroup, NodeName: model.NodeNameOf(ref.Server), BMC: ref.Server.BMC,
			RuntimeVersion: inv.RuntimeVersion, DetailedStatus: model.BMMProvisioned, PowerState: model.PowerOn,
			CordonStatus: model.Uncordoned, ReadyState: model.ReadyTrue})
	}
	return f
}

func (f *fakeSite) bmm(name string) *model.BMM {
	b, _ := f.st.Cluster.BMM(name)
	return b
}

func (f *fakeSite) register(env *testsuite.TestWorkflowEnvironment) {
	env.RegisterWorkflow(RackUpgradeWorkflow)
	env.RegisterWorkflow(ServerUpgradeWorkflow)
	env.RegisterActivity(la)
	env.RegisterActivity(ka)
	env.RegisterActivity(ba)
	env.OnActivity(la.ReadCluster, mock.Anything, mock.Anything).Return(func(_ context.Context, _ string) (api.ClusterState, error) {
		f.mu.Lock()
		defer f.mu.Unlock()
		st := f.st
		st.Cluster.BMMs = append([]model.BMM(nil), f.st.Cluster.BMMs...)
		st.Leases = append([]lease.Lease(nil), f.st.Leases...)
		return st, nil
	})
	env.OnActivity(la.ReadBMM, mock.Anything, mock.Anything).Return(func(_ context.Context, in ledger.ReadBMMInput) (api.ClusterState, error) {
		f.mu.Lock()
		defer f.mu.Unlock()
		st := f.st
		st.Cluster.BMMs = append([]model.BMM(nil), f.st.Cluster.BMMs...)
		st.Leases = append([]lease.Lease(nil), f.st.Leases...)
		return st.ForBMM(in.BMM)
	})
	env.OnActivity(la.SetClusterStatus, mock.Anything, mock.Anything).Return(func(_ context.Context, in ledger.ClusterStatusInput) error {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.st.Cluster.DetailedStatus, f.st.Cluster.DetailedStatusMessage = in.Status.DetailedStatus, in.Status.DetailedStatusMessage
		if in.Status.RuntimeVersion != "" {
			f.st.Cluster.RuntimeVersion = in.Status.RuntimeVersion
		}
		if in.Status.UpgradeTarget != "" {
			f.st.UpgradeTarget = in.Status.UpgradeTarget
		}
		if in.Status.ClearUpgrade {
			f.st.UpgradeTarget = ""
		}
		return nil
	})
	env.OnActivity(la.RecordBMM, mock.Anything, mock.Anything).Return(func(_ context.Context, in ledger.RecordInput) error {
		f.mu.Lock()
		defer f.mu.Unlock()
		applyPatch(f.bmm(in.Patch.BMM), in.Patch)
		if f.emit != nil && len(in.Patch.Roles) > 0 {
			f.emit("node-label", in.Patch.BMM, f.bmm(in.Patch.BMM).Rack, map[string]any{"labels": map[string]string{model.LabelRole: string(in.Patch.Roles[0])}})
		}
		return nil
	})
	env.OnActivity(la.AcquireLease, mock.Anything, mock.Anything).Return(func(_ context.Context, in ledger.AcquireInput) (api.AcquireResult, error) {
		f.mu.Lock()
		defer f.mu.Unlock()
		if err := lease.Check(f.st.Cluster, f.st.Leases, in.Request); err != nil {
			return api.AcquireResult{}, temporal.NewNonRetryableApplicationError(err.Error(), ledger.ErrLeaseRejected, nil)
		}
		f.st.Leases = lease.Grant(f.st.Leases, in.Request, f.bmm(in.Request.BMM).HasRole(model.RoleKCP), env.Now())
		return api.AcquireResult{Holder: in.Request.Holder}, nil
	})
	env.OnActivity(la.ReleaseLease, mock.Anything, mock.Anything).Return(func(_ context.Context, in ledger.ReleaseInput) error {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.st.Leases = lease.Release(f.st.Leases, in.Request.BMM, in.Request.Holder)
		return nil
	})
	env.OnActivity(ka.Cordon, mock.Anything, mock.Anything).Return(func(_ context.Context, node string) error {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.cordoned[node] = true
		return nil
	})
	env.OnActivity(ka.Uncordon, mock.Anything, mock.Anything).Return(func(_ context.Context, node string) error {
		f.mu.Lock()
		defer f.mu.Unlock()
		delete(f.cordoned, node)
		return nil
	})
	env.OnActivity(ka.Drain, mock.Anything, mock.Anything).Return(func(_ context.Context, in kube.DrainInput) (kube.DrainResult, error) {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.drains = append(f.drains, in)
		if f.slowTenants {
			return kube.DrainResult{TimedOut: true, Remaining: 2}, nil
		}
		return kube.DrainResult{Completed: true}, nil
	})
	env.OnActivity(ka.ShutdownVMs, mock.Anything, mock.Anything).Return(func(_ context.Context, in kube.ShutdownInput) (kube.ShutdownResult, error) {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.vmStops = append(f.vmStops, in)
		return kube.ShutdownResult{TimedOut: f.slowTenants}, nil
	})
	env.OnActivity(ka.StartVMs, mock.Anything, mock.Anything).Return(kube.StartResult{}, nil)
	env.OnActivity(ka.WaitNodeReady, mock.Anything, mock.Anything).Return(func(_ context.Context, in kube.WaitReadyInput) (kube.NodeStatus, error) {
		return kube.NodeStatus{Node: in.Node, Exists: true, Ready: "True"}, nil
	})
	env.OnActivity(ba.Reimage, mock.Anything, mock.Anything).Return(func(_ context.Context, in bmc.ReimageInput) (bmc.ReimageResult, error) {
		f.mu.Lock()
		b := f.bmm(in.BMM)
		f.reimages = append(f.reimages, in.BMM)
		if f.emit != nil {
			f.emit("reimage-start", in.BMM, b.Rack, map[string]any{"version": in.Version})
		}
		cp := b.HasRole(model.RoleKCP) || b.HasRole(model.RoleKCPSpare)
		if cp {
			f.kcpOut++
			f.maxKCP = max(f.maxKCP, f.kcpOut)
		}
		f.inFlight[b.Rack]++
		f.maxRack[b.Rack] = max(f.maxRack[b.Rack], f.inFlight[b.Rack])
		f.racks[b.Rack] = true
		if !cp && len(f.racks) > 1 {
			f.overlap = true
		}
		f.mu.Unlock()
		// Another server's step may run while this one "reimages".
		defer func() {
			f.mu.Lock()
			defer f.mu.Unlock()
			if cp {
				f.kcpOut--
			}
			f.inFlight[b.Rack]--
			if f.inFlight[b.Rack] == 0 {
				delete(f.racks, b.Rack)
			}
			if f.emit == nil {
				return
			}
			if f.failing[in.BMM] != "" {
				f.emit("reimage-failed", in.BMM, b.Rack, map[string]any{"version": in.Version})
				return
			}
			f.emit("reimage-done", in.BMM, b.Rack, map[string]any{"version": in.Version})
			f.emit("node-ready", in.BMM, b.Rack, nil)
		}()
		if msg := f.failing[in.BMM]; msg != "" {
			return bmc.ReimageResult{}, temporal.NewNonRetryableApplicationError(msg, "ReimageFailed", nil)
		}
		return bmc.ReimageResult{Version: in.Version, Reimaged: true}, nil
	})
}

func (f *fakeSite) versions() map[string]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]string{}
	for _, b := range f.st.Cluster.BMMs {
		out[b.Name] = b.RuntimeVersion
	}
	return out
}

func (f *fakeSite) role(name string) model.Role {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.bmm(name).Roles[0]
}

func upgradeInput(strategy model.UpdateStrategy) api.UpgradeInput {
	return api.UpgradeInput{Cluster: "site-a", TargetVersion: "4.2.0", UpdateStrategy: strategy}
}

func intp(i int) *int { return &i }

var _ = fmt.Sprint
