package wftest

import (
	"context"
	"fmt"

	"github.com/rackroll/rackroll/activities/kube"
	"github.com/rackroll/rackroll/internal/capacity"
	"github.com/rackroll/rackroll/internal/model"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
)

// The fake site's Kubernetes API: nodes as the machines leave them, one
// tenant VM per node, drains that finish unless the tenants are slow.

func (f *FakeSite) mockKube(env *testsuite.TestWorkflowEnvironment) {
	// Room for every drain, unless the test says which nodes' pods have none.
	f.answer(env, ka.CheckCapacity, "CheckCapacity", func(_ context.Context, in kube.CapacityInput) (capacity.Report, error) {
		f.Mu.Lock()
		defer f.Mu.Unlock()
		f.CapacityChecks = append(f.CapacityChecks, in.Nodes)
		if msg := f.Fail["CheckCapacity"]; msg != "" {
			return capacity.Report{}, temporal.NewNonRetryableApplicationError(msg, "Injected", nil)
		}
		r := capacity.Report{Batch: in.Nodes, Evicted: 2 * len(in.Nodes)}
		for _, n := range in.Nodes {
			if f.NoRoom[n] {
				r.Pending = append(r.Pending, "tenant/app-"+n+"-0")
				r.Shortfall.MilliCPU += 40000
			}
		}
		return r, nil
	})
	f.answer(env, ka.Cordon, "Cordon", func(_ context.Context, node string) error {
		f.Mu.Lock()
		defer f.Mu.Unlock()
		if err := f.step("Cordon", node); err != nil {
			return err
		}
		f.Cordoned[node] = true
		return nil
	})
	f.answer(env, ka.Uncordon, "Uncordon", func(_ context.Context, node string) error {
		f.Mu.Lock()
		defer f.Mu.Unlock()
		if err := f.step("Uncordon", node); err != nil {
			return err
		}
		delete(f.Cordoned, node)
		return nil
	})
	f.answer(env, ka.Drain, "Drain", func(_ context.Context, in kube.DrainInput) (kube.DrainResult, error) {
		f.Mu.Lock()
		defer f.Mu.Unlock()
		if err := f.step("Drain", in.Node); err != nil {
			return kube.DrainResult{}, err
		}
		f.Drains = append(f.Drains, in)
		f.logf("drain %s", f.byNode(in.Node))
		if pod := f.LastWorker[f.byNode(in.Node)]; pod != "" {
			// As the drain activity does at its limit (internal/workerguard).
			return kube.DrainResult{}, temporal.NewNonRetryableApplicationError(fmt.Sprintf("drain of node %s refused: pod %s on node %s is the last Ready rackroll worker",
				in.Node, pod, in.Node), kube.ErrLastWorker, nil)
		}
		if f.SlowTenants {
			return kube.DrainResult{TimedOut: true, Remaining: 2}, nil
		}
		return kube.DrainResult{Completed: true}, nil
	})
	f.answer(env, ka.ShutdownVMs, "ShutdownVMs", func(_ context.Context, in kube.ShutdownInput) (kube.ShutdownResult, error) {
		f.Mu.Lock()
		defer f.Mu.Unlock()
		if err := f.step("ShutdownVMs", in.Node); err != nil {
			return kube.ShutdownResult{}, err
		}
		f.VMStops = append(f.VMStops, in)
		vm := "tenant/vm-" + in.Node + "-0"
		return kube.ShutdownResult{Stopped: []string{vm}, WereRunning: []string{vm}, TimedOut: f.SlowTenants}, nil
	})
	f.answer(env, ka.StartVMs, "StartVMs", func(_ context.Context, node string) (kube.StartResult, error) {
		f.Mu.Lock()
		defer f.Mu.Unlock()
		if err := f.step("StartVMs", node); err != nil {
			return kube.StartResult{}, err
		}
		f.Started++
		return kube.StartResult{Started: []string{"tenant/vm-" + node + "-0"}}, nil
	})
	f.answer(env, ka.WaitNodeReady, "WaitNodeReady", func(_ context.Context, in kube.WaitReadyInput) (kube.NodeStatus, error) {
		f.Mu.Lock()
		defer f.Mu.Unlock()
		if err := f.step("WaitNodeReady", in.Node); err != nil {
			return kube.NodeStatus{}, err
		}
		f.Waits = append(f.Waits, in)
		st := f.Status(f.byNode(in.Node))
		if st.IsReady() && (in.Version == "" || st.RuntimeVersion == in.Version) && (in.PreviousBootID == "" || st.BootID != in.PreviousBootID) {
			return st, nil
		}
		msg := fmt.Sprintf("node %s not Ready within %v: %s", in.Node, in.Timeout, st)
		if st.BootID == in.PreviousBootID {
			msg += " (still the boot from before the reset)"
		}
		return st, temporal.NewNonRetryableApplicationError(msg, kube.ErrNodeNotReady, nil, st)
	})
	f.answer(env, ka.ReadNode, "ReadNode", func(_ context.Context, node string, _ model.NodeVersionSource) (kube.NodeStatus, error) {
		f.Mu.Lock()
		defer f.Mu.Unlock()
		return f.Status(f.byNode(node)), nil
	})
	f.answer(env, ka.ObserveNodes, "ObserveNodes", func(_ context.Context, nodes []string, _ model.NodeVersionSource) ([]kube.NodeStatus, error) {
		f.Mu.Lock()
		defer f.Mu.Unlock()
		f.Observed++
		out := make([]kube.NodeStatus, len(nodes))
		for i, n := range nodes {
			out[i] = f.Status(f.byNode(n))
		}
		return out, nil
	})
	f.answer(env, ka.ObserveControlPlane, "ObserveControlPlane", func(_ context.Context, nodes []string) (kube.ControlPlaneNodes, error) {
		f.Mu.Lock()
		defer f.Mu.Unlock()
		f.CPObserved++
		if f.OnCPObserve != nil {
			f.OnCPObserve(f.CPObserved)
		}
		out := kube.ControlPlaneNodes{SeenAt: env.Now()}
		for _, n := range nodes {
			out.Nodes = append(out.Nodes, f.Status(f.byNode(n)))
		}
		return out, nil
	})
	f.answer(env, ka.DeleteNode, "DeleteNode", func(_ context.Context, node string) error {
		f.Mu.Lock()
		defer f.Mu.Unlock()
		b := f.byNode(node)
		if err := f.step("DeleteNode", b); err != nil {
			return err
		}
		f.Nodes[b].Exists = false
		f.logf("delete-node %s", b)
		f.Sync(b)
		return nil
	})
}
