package keysets

import (
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/workflow"
)

// A BMC keyset's run that moves to a new build while it waits for the
// expiration carries its finished pass: the next run applies nothing
// again, waits, and disables every account at the expiration as the first
// run would have.
func TestRunMovedAtItsWaitDoesNotApplyAgain(t *testing.T) {
	s := newSite(5)
	s.expiry = true
	expires := start.Add(2 * time.Hour)
	s.st.Keysets[0].Expiration = expires
	env := s.env()
	env.RegisterDelayedCallback(func() {
		env.SetTargetWorkerDeploymentVersionChanged(true)
		env.SignalWorkflow(api.SignalSelfUpgrade, nil)
	}, 10*time.Minute)
	in := api.KeysetInput{Cluster: "site-a", Name: "bmc-oncall"}
	env.ExecuteWorkflow(api.KeysetWorkflowName, in)
	can := continuedAsNew(t, env.GetWorkflowError(), "on the move")
	if can.InitialVersioningBehavior != workflow.ContinueAsNewVersioningBehaviorAutoUpgrade {
		t.Error("the next run does not ask for the current build")
	}
	var next api.KeysetInput
	if err := converter.GetDefaultDataConverter().FromPayloads(can.Input, &next); err != nil {
		t.Fatal(err)
	}
	if r := next.Resume; r == nil || r.From != 5 || r.Counts.Applied != 5 || r.Removing {
		t.Fatalf("resume %+v, want the finished pass: from 5, 5 applied", next.Resume)
	}
	calls := s.calls["rack1-c1"]
	env = s.env()
	if err := continued(t, env, start.Add(10*time.Minute), next, nil); err != nil {
		t.Fatalf("the moved run: %v", err)
	}
	var res api.KeysetResult
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	if got := s.calls["rack1-c1"]; got != calls+2 {
		t.Errorf("rack1-c1: %d account calls after the move, want only its two disabled at the expiration", got-calls)
	}
	if res.Disabled != 5 || env.Now().Before(expires) {
		t.Errorf("result %+v at %s: want every account disabled at the expiration %s", res, env.Now(), expires)
	}
}
