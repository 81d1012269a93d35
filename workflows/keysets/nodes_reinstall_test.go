package keysets

import (
	"strings"
	"testing"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/keyset"
	"github.com/rackroll/rackroll/internal/model"
	"go.temporal.io/sdk/workflow"
)

// After a reinstall (the upgrade's run), the set is applied to every node
// as any run does; with no BMM keyset active there is nothing to
// establish, and no node is touched (an empty set is applied only when a
// keyset left it, by the starter's own run).
func TestAfterReinstallAppliesTheSetOrNothing(t *testing.T) {
	in := api.KeysetInput{Cluster: "site-a", Nodes: true, AfterReinstall: true}
	s := newNodeSite(3)
	env := s.env()
	env.ExecuteWorkflow(api.KeysetWorkflowName, in)
	var res api.KeysetResult
	if err := env.GetWorkflowError(); err != nil || env.GetWorkflowResult(&res) != nil || res.Applied != 3 {
		t.Fatalf("with BMM keysets: result %+v (%v), want every node applied", res, env.GetWorkflowError())
	}

	s = newNodeSite(3)
	s.st.Keysets = s.st.Keysets[:1] // the BMC keyset only
	env = s.env()
	env.ExecuteWorkflow(api.KeysetWorkflowName, in)
	res = api.KeysetResult{}
	if err := env.GetWorkflowError(); err != nil || env.GetWorkflowResult(&res) != nil {
		t.Fatalf("without: %v", env.GetWorkflowError())
	}
	if len(s.calls) != 0 || !strings.Contains(res.Note, "no BMM keyset is active") {
		t.Fatalf("without BMM keysets: %d nodes touched, note %q; want none and a note", len(s.calls), res.Note)
	}
}

// A server being reinstalled gets no pod (its OS is going): its outcome
// is pending and says why, the other nodes are applied; a run recorded
// before the change tried it as any node.
func TestReinstallingNodeIsPending(t *testing.T) {
	in := api.KeysetInput{Cluster: "site-a", Nodes: true}
	for _, before := range []bool{false, true} {
		s := newNodeSite(3)
		going := &s.st.Cluster.BMMs[1]
		going.DetailedStatus = model.BMMDeprovisioning
		env := s.env()
		if before {
			env.OnGetVersion(changePendingReinstall, workflow.DefaultVersion, 1).Return(workflow.DefaultVersion)
		}
		env.ExecuteWorkflow(api.KeysetWorkflowName, in)
		var res api.KeysetResult
		if err := env.GetWorkflowError(); err != nil || env.GetWorkflowResult(&res) != nil {
			t.Fatalf("before=%v: %v", before, env.GetWorkflowError())
		}
		if before {
			if s.calls[going.NodeName] == 0 || res.Applied != 3 {
				t.Fatalf("before the change: %s not tried (%d calls), %d applied; want tried, 3", going.Name, s.calls[going.NodeName], res.Applied)
			}
			continue
		}
		if s.calls[going.NodeName] != 0 || res.Applied != 2 {
			t.Fatalf("%s given a pod (%d calls) or %d applied; want none, 2", going.Name, s.calls[going.NodeName], res.Applied)
		}
		o := keyset.OutcomesFor(s.st.Keysets[1], []string{going.Name})[0]
		if o.State != keyset.Pending || !strings.Contains(o.Reason, "reinstalling (Deprovisioning)") {
			t.Fatalf("%s's outcome %+v; want pending, reinstalling", going.Name, o)
		}
	}
}
