package workflows

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/rackroll/rackroll/activities/bmc"
	"github.com/rackroll/rackroll/activities/kube"
	"github.com/rackroll/rackroll/activities/ledger"
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/lease"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"
)

// actionSite is the fake site for BMM actions: fakeSite's ledger plus
// machine power, node readiness and a log of the steps taken. It registers
// its own mocks (fakeSite.register would hand out no ledger action ids).
type actionSite struct {
	*fakeSite
	amu      sync.Mutex
	power    map[string]string        // BMM -> On/Off (default On)
	broken   map[string]bool          // BMM whose node never gets Ready until a replace records new hardware
	fail     map[string]string        // activity -> non-retryable error message
	delay    map[string]time.Duration // activity -> time on the workflow clock before it returns
	calls    []string                 // "Activity bmm-or-node" in order
	forced   []bool                   // Reimage Force flags in order
	started  int                      // StartVMs calls
	children []string                 // child workflow ids started
}

func newActionSite(t *testing.T) *actionSite {
	return &actionSite{fakeSite: newFakeSite(t, "../examples/four-rack.yaml"), power: map[string]string{}, broken: map[string]bool{},
		fail: map[string]string{}, delay: map[string]time.Duration{}}
}

// env returns a test environment with the action workflows and every mock;
// the top-level workflow runs under id.
func (s *actionSite) env(t *testing.T, id string) *testsuite.TestWorkflowEnvironment {
	var ts testsuite.WorkflowTestSuite
	env := ts.NewTestWorkflowEnvironment()
	env.SetStartWorkflowOptions(client.StartWorkflowOptions{ID: id})
	env.RegisterWorkflowWithOptions(BMMActionWorkflow, workflow.RegisterOptions{Name: api.BMMActionWorkflowName})
	env.RegisterWorkflowWithOptions(TroubleshootWorkflow, workflow.RegisterOptions{Name: api.TroubleshootWorkflowName})
	env.RegisterActivity(la)
	env.RegisterActivity(ka)
	env.RegisterActivity(ba)
	env.SetOnChildWorkflowStartedListener(func(info *workflow.Info, _ workflow.Context, _ converter.EncodedValues) {
		s.amu.Lock()
		defer s.amu.Unlock()
		s.children = append(s.children, info.WorkflowExecution.ID)
	})
	s.mockLedger(env)
	s.mockKube(env)
	s.mockBMC(env)
	return env
}

// step logs a call and returns its injected failure, if any.
func (s *actionSite) step(activity, who string) error {
	s.amu.Lock()
	defer s.amu.Unlock()
	s.calls = append(s.calls, activity+" "+who)
	if msg := s.fail[activity]; msg != "" {
		return temporal.NewNonRetryableApplicationError(msg, "Injected", nil)
	}
	return nil
}

func (s *actionSite) after(activity string) func() time.Duration {
	return func() time.Duration {
		s.amu.Lock()
		defer s.amu.Unlock()
		return s.delay[activity]
	}
}

func (s *actionSite) mockLedger(env *testsuite.TestWorkflowEnvironment) {
	f := s.fakeSite
	env.OnActivity(la.ReadCluster, mock.Anything, mock.Anything).Return(func(_ context.Context, _ string) (api.ClusterState, error) {
		f.mu.Lock()
		defer f.mu.Unlock()
		st := f.st
		st.Cluster.BMMs = append([]model.BMM(nil), f.st.Cluster.BMMs...)
		st.Leases = append([]lease.Lease(nil), f.st.Leases...)
		return st, nil
	})
	env.OnActivity(la.RecordBMM, mock.Anything, mock.Anything).Return(func(_ context.Context, in ledger.RecordInput) error {
		f.mu.Lock()
		defer f.mu.Unlock()
		applyPatch(f.bmm(in.Patch.BMM), in.Patch)
		if in.Patch.BMC != nil {
			s.amu.Lock()
			delete(s.broken, in.Patch.BMM) // the repaired hardware is in
			s.amu.Unlock()
		}
		return nil
	})
	// As the ledger: an empty holder gets the next action id.
	env.OnActivity(la.AcquireLease, mock.Anything, mock.Anything).Return(func(_ context.Context, in ledger.AcquireInput) (api.AcquireResult, error) {
		f.mu.Lock()
		defer f.mu.Unlock()
		r := in.Request
		if r.Holder == "" {
			r.Holder = api.ActionID(f.st.Cluster.Name, r.BMM, f.st.ActionSeq+1)
		}
		if err := lease.Check(f.st.Cluster, f.st.Leases, r); err != nil {
			return api.AcquireResult{}, temporal.NewNonRetryableApplicationError(err.Error(), ledger.ErrLeaseRejected, nil)
		}
		if in.Request.Holder == "" {
			f.st.ActionSeq++
		}
		f.st.Leases = lease.Grant(f.st.Leases, r, f.bmm(r.BMM).HasRole(model.RoleKCP), env.Now())
		return api.AcquireResult{Holder: r.Holder}, nil
	})
	env.OnActivity(la.ReleaseLease, mock.Anything, mock.Anything).Return(func(_ context.Context, in ledger.ReleaseInput) error {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.st.Leases = lease.Release(f.st.Leases, in.Request.BMM, in.Request.Holder)
		return nil
	})
}

func (s *actionSite) mockKube(env *testsuite.TestWorkflowEnvironment) {
	f := s.fakeSite
	env.OnActivity(ka.Cordon, mock.Anything, mock.Anything).AfterFn(s.after("Cordon")).Return(func(_ context.Context, node string) error {
		if err := s.step("Cordon", node); err != nil {
			return err
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		f.cordoned[node] = true
		return nil
	})
	env.OnActivity(ka.Uncordon, mock.Anything, mock.Anything).Return(func(_ context.Context, node string) error {
		if err := s.step("Uncordon", node); err != nil {
			return err
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		delete(f.cordoned, node)
		return nil
	})
	env.OnActivity(ka.Drain, mock.Anything, mock.Anything).AfterFn(s.after("Drain")).Return(func(_ context.Context, in kube.DrainInput) (kube.DrainResult, error) {
		if err := s.step("Drain", in.Node); err != nil {
			return kube.DrainResult{}, err
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		f.drains = append(f.drains, in)
		return kube.DrainResult{Completed: true}, nil
	})
	env.OnActivity(ka.ShutdownVMs, mock.Anything, mock.Anything).Return(func(_ context.Context, in kube.ShutdownInput) (kube.ShutdownResult, error) {
		if err := s.step("ShutdownVMs", in.Node); err != nil {
			return kube.ShutdownResult{}, err
		}
		return kube.ShutdownResult{Stopped: []string{"tenant/vm-" + in.Node + "-0"}, WereRunning: []string{"tenant/vm-" + in.Node + "-0"}}, nil
	})
	env.OnActivity(ka.StartVMs, mock.Anything, mock.Anything).Return(func(_ context.Context, node string) (kube.StartResult, error) {
		if err := s.step("StartVMs", node); err != nil {
			return kube.StartResult{}, err
		}
		s.amu.Lock()
		s.started++
		s.amu.Unlock()
		return kube.StartResult{Started: []string{"tenant/vm-" + node + "-0"}}, nil
	})
	env.OnActivity(ka.WaitNodeReady, mock.Anything, mock.Anything).AfterFn(s.after("WaitNodeReady")).Return(func(_ context.Context, in kube.WaitReadyInput) (kube.NodeStatus, error) {
		if err := s.step("WaitNodeReady", in.Node); err != nil {
			return kube.NodeStatus{}, err
		}
		ns := s.node(in.Node)
		if !ns.IsReady() {
			return ns, temporal.NewNonRetryableApplicationError("node "+in.Node+" not Ready within "+in.Timeout.String(), kube.ErrNodeNotReady, nil)
		}
		return ns, nil
	})
	env.OnActivity(ka.ReadNode, mock.Anything, mock.Anything).Return(func(_ context.Context, node string) (kube.NodeStatus, error) {
		return s.node(node), nil
	})
}

// node is what the fake Kubernetes API says about a BMM's node.
func (s *actionSite) node(node string) kube.NodeStatus {
	s.amu.Lock()
	defer s.amu.Unlock()
	ready := "True"
	if s.power[node] == model.PowerOff || s.broken[node] {
		ready = "False"
	}
	return kube.NodeStatus{Node: node, Exists: true, Ready: ready}
}

func (s *actionSite) mockBMC(env *testsuite.TestWorkflowEnvironment) {
	setPower := func(bmm, p string) {
		s.amu.Lock()
		defer s.amu.Unlock()
		s.power[bmm] = p
	}
	env.OnActivity(ba.Restart, mock.Anything, mock.Anything).AfterFn(s.after("Restart")).Return(func(_ context.Context, ep bmc.Endpoint) error {
		if err := s.step("Restart", ep.BMM); err != nil {
			return err
		}
		setPower(ep.BMM, model.PowerOn)
		return nil
	})
	env.OnActivity(ba.PowerOn, mock.Anything, mock.Anything).Return(func(_ context.Context, ep bmc.Endpoint) error {
		if err := s.step("PowerOn", ep.BMM); err != nil {
			return err
		}
		setPower(ep.BMM, model.PowerOn)
		return nil
	})
	env.OnActivity(ba.PowerOff, mock.Anything, mock.Anything).Return(func(_ context.Context, in bmc.PowerOffInput) error {
		what := "PowerOff"
		if in.SkipShutdown {
			what = "ForceOff"
		}
		if err := s.step(what, in.BMM); err != nil {
			return err
		}
		setPower(in.BMM, model.PowerOff)
		return nil
	})
	env.OnActivity(ba.ReadPower, mock.Anything, mock.Anything).Return(func(_ context.Context, ep bmc.Endpoint) (bmc.PowerStatus, error) {
		s.amu.Lock()
		defer s.amu.Unlock()
		p := s.power[ep.BMM]
		if p == "" {
			p = model.PowerOn
		}
		return bmc.PowerStatus{PowerState: p, Health: "OK"}, nil
	})
	env.OnActivity(ba.Reimage, mock.Anything, mock.Anything).AfterFn(s.after("Reimage")).Return(func(_ context.Context, in bmc.ReimageInput) (bmc.ReimageResult, error) {
		if err := s.step("Reimage", in.BMM); err != nil {
			return bmc.ReimageResult{}, err
		}
		s.amu.Lock()
		s.forced = append(s.forced, in.Force)
		s.power[in.BMM] = model.PowerOn
		s.amu.Unlock()
		s.fakeSite.mu.Lock()
		s.reimages = append(s.reimages, in.BMM+"@"+in.Version)
		s.fakeSite.mu.Unlock()
		return bmc.ReimageResult{Version: in.Version, PreviousVersion: in.Version, Reimaged: true}, nil
	})
}

func (s *actionSite) callLog() []string {
	s.amu.Lock()
	defer s.amu.Unlock()
	return append([]string(nil), s.calls...)
}

func (s *actionSite) leases() []lease.Lease {
	s.fakeSite.mu.Lock()
	defer s.fakeSite.mu.Unlock()
	return append([]lease.Lease(nil), s.st.Leases...)
}

func (s *actionSite) ledgerBMM(name string) model.BMM {
	s.fakeSite.mu.Lock()
	defer s.fakeSite.mu.Unlock()
	return *s.bmm(name)
}

// holdLease puts a lease in the ledger as another workflow would.
func (s *actionSite) holdLease(t *testing.T, bmm, holder, op string) {
	s.fakeSite.mu.Lock()
	defer s.fakeSite.mu.Unlock()
	r := lease.Request{BMM: bmm, Holder: holder, Operation: lease.Operation(op)}
	require.NoError(t, lease.Check(s.st.Cluster, s.st.Leases, r))
	s.st.Leases = lease.Grant(s.st.Leases, r, s.bmm(bmm).HasRole(model.RoleKCP), time.Time{})
}

// runAction runs BMMActionWorkflow to its end.
func (s *actionSite) runAction(t *testing.T, in api.ActionInput) (api.ActionResult, error) {
	env := s.env(t, api.ActionID(in.Cluster, in.BMM, 1))
	env.ExecuteWorkflow(BMMActionWorkflow, in)
	require.True(t, env.IsWorkflowCompleted())
	var res api.ActionResult
	if err := env.GetWorkflowError(); err != nil {
		return res, err
	}
	require.NoError(t, env.GetWorkflowResult(&res))
	return res, nil
}
