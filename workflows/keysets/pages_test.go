package keysets

import (
	"errors"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/workflow"
)

// A site larger than a page is walked a page at a time: every node is
// applied, and the run read ⌈BMMs ÷ pageSize⌉ pages, none holding the
// whole site; a run recorded before changePages read the ledger once.
func TestNodesRunReadsTheSiteAPageAtATime(t *testing.T) {
	const n = 2*pageSize + 88
	s := newNodeSite(n)
	env := s.env()
	env.ExecuteWorkflow(api.KeysetWorkflowName, api.KeysetInput{Cluster: "site-a", Nodes: true})
	var res api.KeysetResult
	if err := env.GetWorkflowError(); err != nil || env.GetWorkflowResult(&res) != nil {
		t.Fatalf("nodes run: %v", env.GetWorkflowError())
	}
	if res.Applied != n || s.pagesRead != 3 {
		t.Fatalf("applied %d of %d nodes reading %d pages; want all, 3 pages", res.Applied, n, s.pagesRead)
	}

	before := newNodeSite(n)
	env = before.env()
	env.OnGetVersion(changePages, workflow.DefaultVersion, 1).Return(workflow.DefaultVersion)
	env.ExecuteWorkflow(api.KeysetWorkflowName, api.KeysetInput{Cluster: "site-a", Nodes: true})
	res = api.KeysetResult{}
	if err := env.GetWorkflowError(); err != nil || env.GetWorkflowResult(&res) != nil || res.Applied != n || before.pagesRead != 0 {
		t.Fatalf("before the change: applied %d (%v), %d pages read; want %d, none", res.Applied, env.GetWorkflowError(), before.pagesRead, n)
	}
}

// A BMC keyset's run walks the pages too, every BMC applied.
func TestBMCKeysetRunReadsTheSiteAPageAtATime(t *testing.T) {
	const n = pageSize + 3
	s := newSite(n)
	env := s.env()
	env.ExecuteWorkflow(api.KeysetWorkflowName, api.KeysetInput{Cluster: "site-a", Name: "bmc-oncall"})
	var res api.KeysetResult
	if err := env.GetWorkflowError(); err != nil || env.GetWorkflowResult(&res) != nil {
		t.Fatalf("keyset run: %v", env.GetWorkflowError())
	}
	if res.Applied != n || s.pagesRead != 2 {
		t.Fatalf("applied on %d of %d BMCs reading %d pages; want all, 2 pages", res.Applied, n, s.pagesRead)
	}
}

// A pass whose history grows long continues as new between two waves:
// the next run goes on from the next BMC with the counts so far, so no BMC
// is applied twice and the last run's result is the whole pass's. A next
// run that finds another version starts again from the first BMC.
func TestLongPassGoesOnInANewRun(t *testing.T) {
	const n = 20
	s := newSite(n)
	env := s.env()
	calls := 0
	s.first = func() {
		if calls++; calls == 3*atOnce*2 { // three waves of two accounts
			env.SetCurrentHistoryLength(passHistory)
		}
	}
	in := api.KeysetInput{Cluster: "site-a", Name: "bmc-oncall"}
	env.ExecuteWorkflow(api.KeysetWorkflowName, in)
	var can *workflow.ContinueAsNewError
	if !errors.As(env.GetWorkflowError(), &can) {
		t.Fatalf("a long pass ended with %v, want a continue-as-new", env.GetWorkflowError())
	}
	var next api.KeysetInput
	if err := converter.GetDefaultDataConverter().FromPayloads(can.Input, &next); err != nil {
		t.Fatal(err)
	}
	if r := next.Resume; r == nil || r.From != 3*atOnce || r.Counts.Applied != 3*atOnce || !r.Version.Equal(version) {
		t.Fatalf("resume %+v, want from BMC %d with %d applied, version %s", next.Resume, 3*atOnce, 3*atOnce, version)
	}
	s.first = nil
	res, _ := s.run(t, next)
	if res.Applied != n {
		t.Errorf("the last run's result %+v, want the whole pass's %d applied", res, n)
	}
	for b, c := range s.calls {
		if c != 2 {
			t.Errorf("%s: %d account calls, want 2: one pass, each BMC once", b, c)
		}
	}

	other := next
	other.Resume = &api.KeysetResume{From: next.Resume.From, Version: version.Add(-time.Hour), Counts: next.Resume.Counts}
	res, _ = s.run(t, other)
	if res.Applied != n || s.calls["rack1-c1"] != 4 {
		t.Errorf("another version's resume: %+v, rack1-c1 %d calls; want a pass from the first BMC", res, s.calls["rack1-c1"])
	}
}

// A new build current while a pass runs: the run moves between two waves,
// onto that build, and the next run goes on from the next BMC.
func TestPassMovesBetweenWaves(t *testing.T) {
	s := newSite(12)
	env := s.env()
	calls := 0
	s.first = func() {
		if calls++; calls == atOnce*2 { // the first wave
			env.SetTargetWorkerDeploymentVersionChanged(true)
		}
	}
	env.ExecuteWorkflow(api.KeysetWorkflowName, api.KeysetInput{Cluster: "site-a", Name: "bmc-oncall"})
	var can *workflow.ContinueAsNewError
	if !errors.As(env.GetWorkflowError(), &can) {
		t.Fatalf("the pass ended with %v, want a move", env.GetWorkflowError())
	}
	if can.InitialVersioningBehavior != workflow.ContinueAsNewVersioningBehaviorAutoUpgrade {
		t.Error("the next run does not ask for the current build")
	}
	var next api.KeysetInput
	if err := converter.GetDefaultDataConverter().FromPayloads(can.Input, &next); err != nil {
		t.Fatal(err)
	}
	if next.Resume == nil || next.Resume.From != atOnce {
		t.Fatalf("resume %+v, want from BMC %d", next.Resume, atOnce)
	}
}
