package keysets

import (
	"testing"

	"github.com/rackroll/rackroll/internal/api"
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
