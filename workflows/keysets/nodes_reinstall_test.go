package keysets

import (
	"strings"
	"testing"

	"github.com/rackroll/rackroll/internal/api"
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
