package actions

import (
	"testing"
	"time"

	"github.com/rackroll/rackroll/activities/ledger"
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
)

// Every action's happy path: the steps it takes, what the ledger says
// afterwards, and the lease gone.
func TestActionHappyPaths(t *testing.T) {
	for _, tc := range []struct {
		name  string
		in    api.ActionInput
		setup func(*wftest.FakeSite)
		steps []string
		check func(*testing.T, *wftest.FakeSite, api.ActionResult)
	}{
		{name: "restart", in: wftest.Act(api.ActionRestart, wftest.Compute),
			steps: []string{"Restart rack1-c1", "WaitNodeReady rack1-c1"},
			check: func(t *testing.T, s *wftest.FakeSite, r api.ActionResult) {
				require.Equal(t, model.ReadyTrue, s.LedgerBMM(wftest.Compute).ReadyState)
			}},
		{name: "power-off graceful", in: wftest.Act(api.ActionPowerOff, wftest.Compute),
			steps: []string{"PowerOff rack1-c1"},
			check: func(t *testing.T, s *wftest.FakeSite, r api.ActionResult) {
				b := s.LedgerBMM(wftest.Compute)
				require.Equal(t, model.PowerOff, b.PowerState)
				require.Equal(t, model.ReadyFalse, b.ReadyState, "a machine that is off has no Ready node")
			}},
		{name: "power-off skipShutdown", in: api.ActionInput{Cluster: "site-a", BMM: wftest.Compute, Action: api.ActionPowerOff, SkipShutdown: true},
			steps: []string{"ForceOff rack1-c1"}},
		{name: "start", in: wftest.Act(api.ActionStart, wftest.Compute),
			setup: func(s *wftest.FakeSite) {
				s.Power[wftest.Compute] = model.PowerOff
				s.Bmm(wftest.Compute).PowerState, s.Bmm(wftest.Compute).ReadyState = model.PowerOff, model.ReadyFalse
			},
			steps: []string{"PowerOn rack1-c1", "WaitNodeReady rack1-c1"},
			check: func(t *testing.T, s *wftest.FakeSite, r api.ActionResult) {
				b := s.LedgerBMM(wftest.Compute)
				require.Equal(t, model.PowerOn, b.PowerState)
				require.Equal(t, model.ReadyTrue, b.ReadyState)
			}},
		{name: "reimage", in: wftest.Act(api.ActionReimage, wftest.Compute),
			steps: []string{"Cordon rack1-c1", "Drain rack1-c1", "ShutdownVMs rack1-c1", "Reimage rack1-c1", "WaitNodeReady rack1-c1", "EjectMedia rack1-c1", "Uncordon rack1-c1", "StartVMs rack1-c1"},
			check: func(t *testing.T, s *wftest.FakeSite, r api.ActionResult) {
				require.Equal(t, []string{wftest.Compute + "@4.1.2"}, s.Reimages, "the current version, not an upgrade")
				require.Equal(t, []bool{true}, s.Forced, "forced: the machine runs that version already")
				require.Equal(t, 20*time.Minute, s.Drains[0].Timeout, "two thirds of the 30-minute evacuation")
				b := s.LedgerBMM(wftest.Compute)
				require.Equal(t, "4.1.2", b.RuntimeVersion)
				require.Equal(t, model.Uncordoned, b.CordonStatus)
				require.Equal(t, model.BMMProvisioned, b.DetailedStatus)
				require.Equal(t, []string{"tenant/vm-rack1-c1-0"}, r.VMsStarted)
			}},
		{name: "replace clears Unhealthy", in: api.ActionInput{Cluster: "site-a", BMM: wftest.Compute, Action: api.ActionReplace,
			ReplaceParams: api.ReplaceParams{BootMacAddress: "52:54:00:aa:bb:cc", BMCMacAddress: "52:54:00:aa:bb:01", SerialNumber: "SN-NEW", BMCCredentials: "default", StoragePolicy: api.StoragePreserve}},
			setup: func(s *wftest.FakeSite) {
				b := s.Bmm(wftest.Compute)
				b.DetailedStatusMessage, b.ReadyState, b.PowerState = model.UnhealthyMessage, model.ReadyFalse, model.PowerOff
				s.Power[wftest.Compute] = model.PowerOff
				s.St.BMCCredentials = map[string]model.CredentialRef{"default": {UsernameEnv: "U", PasswordEnv: "P"}}
			},
			// The node is not Ready: nothing to evacuate, only a cordon.
			steps: []string{"Cordon rack1-c1", "Reimage rack1-c1", "WaitNodeReady rack1-c1", "EjectMedia rack1-c1", "Uncordon rack1-c1", "StartVMs rack1-c1"},
			check: func(t *testing.T, s *wftest.FakeSite, r api.ActionResult) {
				b := s.LedgerBMM(wftest.Compute)
				require.Empty(t, b.DetailedStatusMessage, "replace is what clears Unhealthy")
				require.Equal(t, model.BMMProvisioned, b.DetailedStatus)
				require.Equal(t, "52:54:00:aa:bb:cc", b.BootMACAddress)
				require.Equal(t, "SN-NEW", b.SerialNumber)
				require.Equal(t, "52:54:00:aa:bb:01", b.BMCMACAddress)
				require.True(t, b.Healthy())
			}},
		{name: "replace DiscardAll evacuates with safeguardMode None, VMs stay stopped",
			in:    api.ActionInput{Cluster: "site-a", BMM: wftest.Compute, Action: api.ActionReplace, ReplaceParams: api.ReplaceParams{SafeguardMode: api.SafeguardNone}},
			steps: []string{"Cordon rack1-c1", "Drain rack1-c1", "ShutdownVMs rack1-c1", "Reimage rack1-c1", "WaitNodeReady rack1-c1", "EjectMedia rack1-c1", "Uncordon rack1-c1"},
			check: func(t *testing.T, s *wftest.FakeSite, r api.ActionResult) {
				require.Zero(t, s.Started)
				require.Contains(t, r.Message, "DiscardAll")
			}},
		{name: "cordon", in: wftest.Act(api.ActionCordon, wftest.Compute), steps: []string{"Cordon rack1-c1"},
			check: func(t *testing.T, s *wftest.FakeSite, r api.ActionResult) {
				require.Equal(t, model.Cordoned, s.LedgerBMM(wftest.Compute).CordonStatus)
			}},
		{name: "cordon evacuate", in: api.ActionInput{Cluster: "site-a", BMM: wftest.Compute, Action: api.ActionCordon, Evacuate: true, EvacuateTimeout: 90 * time.Second},
			steps: []string{"Cordon rack1-c1", "Drain rack1-c1", "ShutdownVMs rack1-c1"},
			check: func(t *testing.T, s *wftest.FakeSite, r api.ActionResult) {
				require.Equal(t, time.Minute, s.Drains[0].Timeout, "evacuateTimeout is configurable")
				require.Equal(t, []string{"tenant/vm-rack1-c1-0"}, r.VMsStopped)
			}},
		{name: "uncordon", in: wftest.Act(api.ActionUncordon, wftest.Compute), steps: []string{"Uncordon rack1-c1", "StartVMs rack1-c1"},
			setup: func(s *wftest.FakeSite) { s.Bmm(wftest.Compute).CordonStatus = model.Cordoned },
			check: func(t *testing.T, s *wftest.FakeSite, r api.ActionResult) {
				require.Equal(t, model.Uncordoned, s.LedgerBMM(wftest.Compute).CordonStatus)
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := wftest.NewActionSite(t)
			if tc.setup != nil {
				tc.setup(s)
			}
			res, err := s.RunAction(t, tc.in)
			require.NoError(t, err)
			require.NotEmpty(t, res.Message)
			require.Equal(t, tc.steps, s.CallLog())
			require.Empty(t, s.Leases(), "lease released")
			if tc.check != nil {
				tc.check(t, s, res)
			}
		})
	}
}

// Failure paths: the workflow fails saying which step and why, the BMM is
// marked Error (cordon/uncordon leave its status alone; Unhealthy stays),
// and the lease is released.
func TestActionFailurePaths(t *testing.T) {
	for _, tc := range []struct {
		name, failing, want string
		in                  api.ActionInput
		setup               func(*wftest.FakeSite)
		status              string
	}{
		{name: "restart", in: wftest.Act(api.ActionRestart, wftest.Compute), failing: "Restart", want: "restart of rack1-c1 failed: power cycle: BMC says no", status: model.BMMError},
		{name: "power-off", in: wftest.Act(api.ActionPowerOff, wftest.Compute), failing: "PowerOff", want: "power-off of rack1-c1 failed: power off: BMC says no", status: model.BMMError},
		{name: "start never Ready", in: wftest.Act(api.ActionStart, wftest.Compute), setup: func(s *wftest.FakeSite) { s.Broken[wftest.Compute] = true },
			want: "start of rack1-c1 failed: wait for node Ready: node rack1-c1 not Ready", status: model.BMMError},
		{name: "reimage", in: wftest.Act(api.ActionReimage, wftest.Compute), failing: "Reimage", want: "reimage of rack1-c1 failed: reimage: BMC says no", status: model.BMMError},
		{name: "replace keeps Unhealthy", in: wftest.Act(api.ActionReplace, wftest.Compute), failing: "Reimage", want: "replace of rack1-c1 failed: reimage",
			setup: func(s *wftest.FakeSite) {
				s.Bmm(wftest.Compute).DetailedStatusMessage, s.Bmm(wftest.Compute).ReadyState = model.UnhealthyMessage, model.ReadyFalse
			},
			status: model.BMMError},
		{name: "cordon", in: wftest.Act(api.ActionCordon, wftest.Compute), failing: "Cordon", want: "cordon of rack1-c1 failed: cordon: BMC says no", status: model.BMMProvisioned},
		{name: "uncordon", in: wftest.Act(api.ActionUncordon, wftest.Compute), failing: "Uncordon", want: "uncordon of rack1-c1 failed: uncordon: BMC says no", status: model.BMMProvisioned},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := wftest.NewActionSite(t)
			if tc.failing != "" {
				s.Fail[tc.failing] = "BMC says no"
			}
			if tc.setup != nil {
				tc.setup(s)
			}
			before := s.LedgerBMM(wftest.Compute).DetailedStatusMessage
			_, err := s.RunAction(t, tc.in)
			require.ErrorContains(t, err, tc.want)
			requireAppErrorType(t, err, api.ErrActionFailed)
			require.Empty(t, s.Leases(), "lease released")
			b := s.LedgerBMM(wftest.Compute)
			require.Equal(t, tc.status, b.DetailedStatus)
			if before == model.UnhealthyMessage {
				require.Equal(t, model.UnhealthyMessage, b.DetailedStatusMessage, "a failed replace leaves the mark")
			}
		})
	}
}

// Rejections happen before any side effect: no step runs, no lease is
// left, and the error says why.
func TestActionRejections(t *testing.T) {
	s0 := wftest.NewActionSite(t)
	kcp, _ := wftest.PlacedRoles(s0)
	for _, tc := range []struct {
		name, want, errType string
		in                  api.ActionInput
		setup               func(*testing.T, *wftest.FakeSite)
	}{
		{name: "two KCP disruptions", in: wftest.Act(api.ActionRestart, kcp[0]), errType: ledger.ErrLeaseRejected,
			setup: func(t *testing.T, s *wftest.FakeSite) {
				s.HoldLease(t, kcp[1], "action:site-a:"+kcp[1]+":7", api.ActionRestart)
			},
			want: "already disrupting KCP server " + kcp[1]},
		{name: "KCP set not full", in: wftest.Act(api.ActionReimage, kcp[0]), errType: ledger.ErrLeaseRejected,
			setup: func(t *testing.T, s *wftest.FakeSite) { s.Bmm(kcp[2]).ReadyState = model.ReadyFalse },
			want:  "the KCP set is not full"},
		{name: "leased server", in: wftest.Act(api.ActionCordon, wftest.Compute), errType: ledger.ErrLeaseRejected,
			setup: func(t *testing.T, s *wftest.FakeSite) {
				s.HoldLease(t, wftest.Compute, "upgrade:site-a:rack1-c1", "upgrade")
			},
			want: "bmm rack1-c1 is busy: upgrade:site-a:rack1-c1 (upgrade) holds it"},
		{name: "unknown BMM", in: wftest.Act(api.ActionRestart, "rack9-c9"), errType: api.ErrPrecheck, want: `bmm "rack9-c9" is not in cluster site-a: known BMMs are rack1-c1`},
		{name: "cluster not Running", in: wftest.Act(api.ActionRestart, wftest.Compute), errType: ledger.ErrLeaseRejected,
			setup: func(t *testing.T, s *wftest.FakeSite) { s.St.Cluster.DetailedStatus = model.ClusterDegraded },
			want:  "cluster site-a is Degraded, not Running"},
		{name: "bad action", in: wftest.Act("reboot", wftest.Compute), errType: api.ErrInvalidInput, want: `action "reboot": allowed restart, power-off, start, reimage, replace, cordon, uncordon`},
		{name: "bad storagePolicy", in: api.ActionInput{Cluster: "site-a", BMM: wftest.Compute, Action: api.ActionReplace, ReplaceParams: api.ReplaceParams{StoragePolicy: "Keep"}},
			errType: api.ErrInvalidInput, want: `storagePolicy "Keep": allowed Preserve, DiscardAll`},
		{name: "evacuate on restart", in: api.ActionInput{Cluster: "site-a", BMM: wftest.Compute, Action: api.ActionRestart, Evacuate: true},
			errType: api.ErrInvalidInput, want: "evacuate true: only cordon takes it"},
		{name: "unknown credentials reference", in: api.ActionInput{Cluster: "site-a", BMM: wftest.Compute, Action: api.ActionReplace, ReplaceParams: api.ReplaceParams{BMCCredentials: "idrac", SafeguardMode: api.SafeguardNone}},
			errType: api.ErrPrecheck, want: `bmcCredentials "idrac" is not in the inventory's bmcCredentials`},
		{name: "replace a healthy uncordoned BMM with safeguardMode All", in: wftest.Act(api.ActionReplace, wftest.Compute),
			errType: api.ErrPrecheck, want: "which safeguardMode All (the default) refuses: cordon it with evacuate first (`starter bmm cordon --cluster site-a --bmm rack1-c1 --evacuate`)"},
		{name: "restart an Unhealthy BMM", in: wftest.Act(api.ActionRestart, wftest.Compute), errType: api.ErrPrecheck, want: "only replace returns it to service",
			setup: func(t *testing.T, s *wftest.FakeSite) {
				s.Bmm(wftest.Compute).DetailedStatusMessage = model.UnhealthyMessage
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := wftest.NewActionSite(t)
			if tc.setup != nil {
				tc.setup(t, s)
			}
			held := s.Leases()
			_, err := s.RunAction(t, tc.in)
			require.ErrorContains(t, err, tc.want)
			requireAppErrorType(t, err, tc.errType)
			require.Empty(t, s.CallLog(), "no side effect")
			require.Equal(t, held, s.Leases(), "no lease taken or lost")
		})
	}
}

// The time limit fails the action with "timed out after X" and the lease
// is still released; so is it when the workflow is cancelled.
func TestActionTimeoutAndCancelReleaseLease(t *testing.T) {
	t.Run("restart past 40 minutes", func(t *testing.T) {
		s := wftest.NewActionSite(t)
		s.Delay["Restart"] = time.Hour
		_, err := s.RunAction(t, wftest.Act(api.ActionRestart, wftest.Compute))
		require.ErrorContains(t, err, "restart of rack1-c1 timed out after 40m0s")
		requireAppErrorType(t, err, api.ErrActionTimeout)
		require.Empty(t, s.Leases())
		require.Equal(t, model.BMMError, s.LedgerBMM(wftest.Compute).DetailedStatus)
	})
	t.Run("reimage past 3 hours", func(t *testing.T) {
		s := wftest.NewActionSite(t)
		s.Delay["Reimage"] = 5 * time.Hour
		_, err := s.RunAction(t, wftest.Act(api.ActionReimage, wftest.Compute))
		require.ErrorContains(t, err, "reimage of rack1-c1 timed out: reimage: the BMC of rack1-c1 did not start the install of 4.1.2 within 2h59m0s (timeouts.reimage)")
		requireAppErrorType(t, err, api.ErrActionTimeout)
		require.Empty(t, s.Leases())
	})
	t.Run("cordon evacuate whose drain never answers", func(t *testing.T) {
		// At the drain's limit the evacuation proceeds, as it does when the
		// drain reports its own time out (docs/behaviour.md#time-limits).
		s := wftest.NewActionSite(t)
		s.Delay["Drain"] = 2 * time.Hour
		res, err := s.RunAction(t, api.ActionInput{Cluster: "site-a", BMM: wftest.Compute, Action: api.ActionCordon, Evacuate: true})
		require.NoError(t, err)
		require.True(t, res.DrainTimedOut)
		require.Contains(t, res.Message, "the drain ran out of time and the evacuation proceeded")
		require.Empty(t, s.Leases())
	})
	t.Run("cancelled mid-reimage", func(t *testing.T) {
		s := wftest.NewActionSite(t)
		s.Delay["Reimage"] = time.Hour
		env := s.Env(t, api.ActionID("site-a", wftest.Compute, 1))
		env.RegisterDelayedCallback(func() {
			require.Len(t, s.Leases(), 1, "held while running")
			env.CancelWorkflow()
		}, 10*time.Minute)
		env.ExecuteWorkflow(BMMActionWorkflow, wftest.Act(api.ActionReimage, wftest.Compute))
		var ce *temporal.CanceledError
		require.ErrorAs(t, env.GetWorkflowError(), &ce)
		require.Empty(t, s.Leases(), "released after cancellation")
		b := s.LedgerBMM(wftest.Compute)
		require.Equal(t, model.BMMError, b.DetailedStatus)
		require.Contains(t, b.DetailedStatusMessage, "cancelled")
	})
}

// A starter that took the lease for the action's id first is confirmed,
// not refused.
func TestActionLeaseTakenByStarterIsIdempotent(t *testing.T) {
	s := wftest.NewActionSite(t)
	s.HoldLease(t, wftest.Compute, api.ActionID("site-a", wftest.Compute, 1), api.ActionRestart)
	_, err := s.RunAction(t, wftest.Act(api.ActionRestart, wftest.Compute))
	require.NoError(t, err)
	require.Empty(t, s.Leases())
}

func TestActionInputValidate(t *testing.T) {
	ok := []api.ActionInput{
		wftest.Act(api.ActionRestart, wftest.Compute),
		{Cluster: "c", BMM: "b", Action: api.ActionPowerOff, SkipShutdown: true},
		{Cluster: "c", BMM: "b", Action: api.ActionReplace, ReplaceParams: api.ReplaceParams{BootMacAddress: "52:54:00:01:00:01", BMCMacAddress: "aa-bb-cc-dd-ee-ff",
			StoragePolicy: api.StoragePreserve, SafeguardMode: api.SafeguardNone, BMCCredentials: "default"}},
	}
	for _, in := range ok {
		require.NoError(t, in.Validate(), "%+v", in)
	}
	for want, in := range map[string]api.ActionInput{
		"cluster is empty":                          {BMM: "b", Action: api.ActionStart},
		"bmm is empty":                              {Cluster: "c", Action: api.ActionStart},
		"skipShutdown true: only power-off":         {Cluster: "c", BMM: "b", Action: api.ActionRestart, SkipShutdown: true},
		`bootMacAddress "52:54"`:                    {Cluster: "c", BMM: "b", Action: api.ActionReplace, ReplaceParams: api.ReplaceParams{BootMacAddress: "52:54"}},
		`safeguardMode "Some": allowed All, None`:   {Cluster: "c", BMM: "b", Action: api.ActionReplace, ReplaceParams: api.ReplaceParams{SafeguardMode: "Some"}},
		"never a username or password":              {Cluster: "c", BMM: "b", Action: api.ActionReplace, ReplaceParams: api.ReplaceParams{BMCCredentials: "user=root"}},
		"replace parameters given for action start": {Cluster: "c", BMM: "b", Action: api.ActionStart, ReplaceParams: api.ReplaceParams{SerialNumber: "x"}},
		"evacuateTimeout -1s is negative":           {Cluster: "c", BMM: "b", Action: api.ActionCordon, EvacuateTimeout: -time.Second},
	} {
		require.ErrorContains(t, in.Validate(), want)
	}
}

func requireAppErrorType(t *testing.T, err error, typ string) {
	t.Helper()
	var app *temporal.ApplicationError
	require.ErrorAs(t, err, &app)
	require.Equal(t, typ, app.Type(), app.Error())
}
