package actions_test

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/activities/ledger"
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/invariants"
	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/lease"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/toolbin"
	"github.com/rackroll/rackroll/test/e2e"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
)

// Bad input, end to end: every mistake an operator (or a script) can make
// against a running site gets a clear error naming the field, the value or
// what is allowed — from the workflow failing in preflight, the ledger
// refusing, or the CLI refusing — and leaves nothing behind: no workflow
// still running besides the ledger and monitor, no lease, no reimage in
// the lab. One site for all cases (one-rack: three KCPs, so two KCP
// disruptions can collide).
func TestBadInputEndToEnd(t *testing.T) {
	t.Parallel()
	e := e2e.Start(t, "../../examples/one-rack.yaml", e2e.Options{})
	before := e.Lab.ReimageCounts()
	kcps := kcpNames(e.State())
	if len(kcps) < 2 {
		t.Fatalf("one-rack site has KCPs %v, want at least two", kcps)
	}
	cl := e.Cluster
	good := model.UpdateStrategy{WaitTimeMinutes: minutes(0)}
	upgrade := func(version string, s model.UpdateStrategy) api.UpgradeInput {
		return api.UpgradeInput{Cluster: cl, TargetVersion: version, UpdateStrategy: s}
	}

	// Each case returns the error the operator sees.
	cases := []struct {
		name string
		run  func(t *testing.T) error
		want []string // each must appear in the error
	}{
		// The upgrade workflow's preflight: the workflow fails at once.
		{"version not x.y.z", startFails(e, upgrade("4.2", good)), []string{`"4.2"`, "major.minor.patch"}},
		{"version with a leading zero", startFails(e, upgrade("4.02.0", good)), []string{"4.02.0", "major.minor.patch"}},
		{"version skips a minor", startFails(e, upgrade("4.3.0", good)), []string{"skips minor release 4.2"}},
		{"downgrade", startFails(e, upgrade("4.0.1", good)), []string{"4.0.1", "downgrades are not allowed"}},
		{"same version", startFails(e, upgrade("4.1.2", good)), []string{"4.1.2", "nothing to upgrade"}},
		{"major skip", startFails(e, upgrade("6.0.0", good)), []string{"6.0.0", "skips major release 5"}},
		{"unknown strategyType", startFails(e, upgrade("4.2.0", model.UpdateStrategy{StrategyType: "Fast"})), []string{"strategyType", "Fast", "Rack, PauseAfterRack"}},
		{"unknown thresholdType", startFails(e, upgrade("4.2.0", model.UpdateStrategy{ThresholdType: "Most"})), []string{"thresholdType", "Most", "CountSuccess, PercentSuccess"}},
		{"percent above 100", startFails(e, upgrade("4.2.0", model.UpdateStrategy{ThresholdType: model.ThresholdPercentSuccess, ThresholdValue: 120})), []string{"thresholdValue", "120", "above 100"}},
		{"negative threshold", startFails(e, upgrade("4.2.0", model.UpdateStrategy{ThresholdType: model.ThresholdCountSuccess, ThresholdValue: -1})), []string{"thresholdValue", "-1", "0 or more"}},
		{"count above the rack", startFails(e, upgrade("4.2.0", model.UpdateStrategy{ThresholdType: model.ThresholdCountSuccess, ThresholdValue: 99})), []string{"thresholdValue", "99", "compute servers"}},
		{"wait above 60", startFails(e, upgrade("4.2.0", model.UpdateStrategy{WaitTimeMinutes: minutes(90)})), []string{"waitTimeMinutes", "90", "between 0 and 60"}},
		{"negative maxUnavailable", startFails(e, upgrade("4.2.0", model.UpdateStrategy{MaxUnavailable: -1})), []string{"maxUnavailable", "-1"}},

		// Actions: refused by validation or by the ledger, before any lease.
		{"action on an unknown BMM", acquire(e, lease.Request{BMM: "rack9-c9", Holder: "badinput", Operation: lease.OpRestart}), []string{"rack9-c9", "not in cluster", "known BMMs are"}},
		{"action workflow on an unknown BMM", startActionFails(e, api.ActionInput{Cluster: cl, BMM: "rack9-c9", Action: api.ActionRestart}), []string{"rack9-c9"}},
		{"unknown action", startActionFails(e, api.ActionInput{Cluster: cl, BMM: "rack1-c1", Action: "explode"}), []string{`"explode"`, "restart, power-off"}},
		{"skipShutdown on a restart", startActionFails(e, api.ActionInput{Cluster: cl, BMM: "rack1-c1", Action: api.ActionRestart, SkipShutdown: true}), []string{"skipShutdown", "only power-off"}},
		{"replace parameters on a reimage", startActionFails(e, api.ActionInput{Cluster: cl, BMM: "rack1-c1", Action: api.ActionReimage, ReplaceParams: api.ReplaceParams{SerialNumber: "SN-X"}}), []string{"replace parameters", "only replace"}},
		{"bad storage policy", startActionFails(e, api.ActionInput{Cluster: cl, BMM: "rack1-c1", Action: api.ActionReplace, ReplaceParams: api.ReplaceParams{StoragePolicy: "Keep"}}), []string{"storagePolicy", `"Keep"`, "Preserve, DiscardAll"}},
		{"a secret as bmcCredentials", startActionFails(e, api.ActionInput{Cluster: cl, BMM: "rack1-c1", Action: api.ActionReplace, ReplaceParams: api.ReplaceParams{BMCCredentials: "root:calvin"}}), []string{"bmcCredentials", "never a username or password"}},
		{"a second KCP disruption while one runs", func(t *testing.T) error {
			holder := "badinput-first"
			if err := acquire(e, lease.Request{BMM: kcps[0], Holder: holder, Operation: lease.OpRestart})(t); err != nil {
				t.Fatalf("first KCP disruption refused: %v", err)
			}
			defer release(t, e, kcps[0], holder)
			return acquire(e, lease.Request{BMM: kcps[1], Holder: "badinput-second", Operation: lease.OpRestart})(t)
		}, []string{kcps[1], "already disrupting KCP server " + kcps[0], "one KCP disruption at a time"}},
		{"a lease asked on a stale observation", func(t *testing.T) error {
			// Typed through the real server, so the gate observes again.
			seen := time.Now().Add(-time.Minute)
			_, err := (&ledger.Activities{Client: e.Client}).AcquireLease(context.Background(), ledger.AcquireInput{Cluster: cl,
				Request: lease.Request{BMM: kcps[0], Holder: "badinput-stale", Operation: lease.OpRestart, ObservedAt: &seen}})
			if !ledger.Stale(err) {
				t.Errorf("want the ledger's stale-observation refusal, got %v", err)
			}
			return err
		}, []string{kcps[0], "before the lease was asked", "observe again"}},
		{"a second upgrade start", func(t *testing.T) error {
			// The first upgrade is parked on a task queue no worker polls,
			// so it holds the id without touching the site.
			ctx := context.Background()
			first, err := e.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: api.UpgradeID(cl), TaskQueue: "badinput-parked"},
				api.RuntimeUpgradeWorkflowName, upgrade("4.2.0", good))
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = e.Client.TerminateWorkflow(ctx, first.GetID(), first.GetRunID(), "bad-input test cleanup") }()
			_, err = e.Client.ExecuteWorkflow(ctx, upgradeStartOptions(cl), api.RuntimeUpgradeWorkflowName, upgrade("4.2.0", good))
			var started *serviceerror.WorkflowExecutionAlreadyStarted
			if !errors.As(err, &started) {
				t.Fatalf("second start: %v, want WorkflowExecutionAlreadyStarted", err)
			}
			return err
		}, []string{"already running", api.UpgradeID(cl)}},
		{"continue when no upgrade runs", func(t *testing.T) error {
			_, err := e.Client.UpdateWorkflow(context.Background(), client.UpdateWorkflowOptions{WorkflowID: api.UpgradeID(cl),
				UpdateName: api.UpdateContinue, WaitForStage: client.WorkflowUpdateStageCompleted})
			return err
		}, []string{"already completed"}},

		// The Temporal CLI with hand-written JSON.
		{"temporal CLI: malformed JSON", temporalStart(e, api.RuntimeUpgradeWorkflowName, api.UpgradeID(cl), `{bad`), []string{"not valid JSON"}},
		{"temporal CLI: targetVersion a number", temporalStart(e, api.RuntimeUpgradeWorkflowName, api.UpgradeID(cl),
			fmt.Sprintf(`{"cluster":%q,"targetVersion":420}`, cl)), []string{"UpgradeInput.targetVersion", "of type string"}},
		{"temporal CLI: updateStrategy a string", temporalStart(e, api.RuntimeUpgradeWorkflowName, api.UpgradeID(cl),
			fmt.Sprintf(`{"cluster":%q,"targetVersion":"4.2.0","updateStrategy":"Rack"}`, cl)), []string{"updateStrategy"}},
		{"temporal CLI: thresholdValue a string", temporalStart(e, api.RuntimeUpgradeWorkflowName, api.UpgradeID(cl),
			fmt.Sprintf(`{"cluster":%q,"targetVersion":"4.2.0","updateStrategy":{"thresholdValue":"80"}}`, cl)), []string{"thresholdValue", "of type int"}},
		{"temporal CLI: action bmm a number", temporalStart(e, api.BMMActionWorkflowName, api.ActionID(cl, "rack1-c1", 999),
			fmt.Sprintf(`{"cluster":%q,"bmm":7,"action":"restart"}`, cl)), []string{"ActionInput.bmm", "of type string"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.run(t)
			if err == nil {
				t.Fatal("accepted; want a clear error")
			}
			t.Logf("refused: %v", err)
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
			assertNothingLeft(t, e, before)
		})
	}
	// Then a valid upgrade on the same site, so the log the checker reads
	// below has real reimages in it: internal/invariants must find the
	// lab's own record of a correct upgrade clean (no false alarms).
	// A bound, not a timing: a loaded make test has taken minutes here.
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	valid := upgrade("4.2.0", good)
	// The lab's PDBs would hold a drain for the default 20 minutes.
	valid.DrainTimeout, valid.VMShutdownTimeout = 5*time.Second, 5*time.Second
	run, err := e.Client.ExecuteWorkflow(ctx, upgradeStartOptions(cl), api.RuntimeUpgradeWorkflowName, valid)
	if err != nil {
		t.Fatal(err)
	}
	var st api.UpgradeStatus
	if err := run.Get(ctx, &st); err != nil {
		t.Fatalf("the valid upgrade after the refusals failed: %v", err)
	}
	if l := e.State().Leases; len(l) > 0 {
		t.Errorf("leases left after the upgrade: %+v", l)
	}

	// The lab saw nothing unsafe, refusals and upgrade alike.
	evs, err := events.ReadFile(e.EventsPath)
	if err != nil {
		t.Fatal(err)
	}
	site, err := invariants.SiteFromInventory(e.Inventory)
	if err != nil {
		t.Fatal(err)
	}
	site.TargetVersion = "4.2.0"
	if n := countKind(evs, events.ReimageStart); n == 0 {
		t.Fatal("the upgrade left no reimage-start in the lab log: nothing for the checker to judge")
	}
	for _, v := range invariants.Check(evs, site) {
		t.Errorf("violation: %s", v)
	}
}

func kcpNames(st api.ClusterState) []string {
	var out []string
	for _, b := range st.Cluster.BMMs {
		if b.HasRole(model.RoleKCP) {
			out = append(out, b.Name)
		}
	}
	return out
}

// upgradeStartOptions are the start options `starter upgrade start` uses.
func upgradeStartOptions(cluster string) client.StartWorkflowOptions {
	return client.StartWorkflowOptions{ID: api.UpgradeID(cluster), TaskQueue: api.TaskQueue,
		WorkflowExecutionErrorWhenAlreadyStarted: true}
}

// startFails starts an upgrade and returns how it ended: preflight must
// fail it before any side effect.
func startFails(e *e2e.Env, in api.UpgradeInput) func(*testing.T) error {
	return func(t *testing.T) error {
		return runToEnd(t, e, upgradeStartOptions(in.Cluster), api.RuntimeUpgradeWorkflowName, in)
	}
}

func startActionFails(e *e2e.Env, in api.ActionInput) func(*testing.T) error {
	return func(t *testing.T) error {
		if err := in.Validate(); err != nil {
			return err // what starter refuses before any request
		}
		opts := client.StartWorkflowOptions{ID: api.ActionID(in.Cluster, in.BMM, 900), TaskQueue: api.TaskQueue}
		return runToEnd(t, e, opts, api.BMMActionWorkflowName, in)
	}
}

func runToEnd(t *testing.T, e *e2e.Env, opts client.StartWorkflowOptions, wf string, in any) error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	run, err := e.Client.ExecuteWorkflow(ctx, opts, wf, in)
	if err != nil {
		return err
	}
	return run.Get(ctx, nil)
}

func acquire(e *e2e.Env, req lease.Request) func(*testing.T) error {
	return func(t *testing.T) error {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		h, err := e.Client.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{WorkflowID: api.ClusterID(e.Cluster),
			UpdateName: api.UpdateAcquireLease, Args: []any{req}, WaitForStage: client.WorkflowUpdateStageCompleted})
		if err != nil {
			return err
		}
		var res api.AcquireResult
		return h.Get(ctx, &res)
	}
}

func release(t *testing.T, e *e2e.Env, bmm, holder string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	h, err := e.Client.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{WorkflowID: api.ClusterID(e.Cluster),
		UpdateName: api.UpdateReleaseLease, Args: []any{api.ReleaseRequest{BMM: bmm, Holder: holder}}, WaitForStage: client.WorkflowUpdateStageCompleted})
	if err == nil {
		err = h.Get(ctx, nil)
	}
	if err != nil {
		t.Errorf("release %s: %v", bmm, err)
	}
}

// temporalStart runs `temporal workflow execute` with hand-written JSON
// and returns the CLI's refusal or the workflow's failure, with the output.
func temporalStart(e *e2e.Env, wf, id, input string) func(*testing.T) error {
	return func(t *testing.T) error {
		bin, err := toolbin.Path("temporal")
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, bin, "workflow", "execute", "--address", e.Server.Address,
			"--type", wf, "--task-queue", api.TaskQueue, "--workflow-id", id, "--input", input).CombinedOutput()
		if err == nil {
			return nil
		}
		return fmt.Errorf("%v: %s", err, out)
	}
}

// assertNothingLeft: no lease, no workflow running but the ledger and the
// monitor, no reimage since the site came up.
func assertNothingLeft(t *testing.T, e *e2e.Env, before map[string]int) {
	t.Helper()
	if l := e.State().Leases; len(l) > 0 {
		t.Errorf("leases left behind: %+v", l)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var running []string
	// Visibility trails the close of a workflow by a moment (longer on a
	// loaded machine: a bound, not a timing).
	e.Eventually(time.Minute, "only the ledger and the monitor running", func() bool {
		resp, err := e.Client.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Query: `ExecutionStatus="Running"`})
		if err != nil {
			t.Fatal(err)
		}
		running = running[:0]
		for _, x := range resp.Executions {
			id := x.Execution.WorkflowId
			if id != api.ClusterID(e.Cluster) && id != api.MonitorID(e.Cluster) {
				running = append(running, id)
			}
		}
		return len(running) == 0
	})
	for bmm, n := range e.Lab.ReimageCounts() {
		if n != before[bmm] {
			t.Errorf("%s reimaged %d times (was %d)", bmm, n, before[bmm])
		}
	}
}

func minutes(n int) *int { return &n }

func countKind(evs []events.Event, kind string) int {
	n := 0
	for _, e := range evs {
		if e.Kind == kind {
			n++
		}
	}
	return n
}
