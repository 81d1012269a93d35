package workflows

import (
	"reflect"
	"runtime"
	"strings"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/workflows/actions"
	"github.com/rackroll/rackroll/workflows/cluster"
	"github.com/rackroll/rackroll/workflows/keysets"
	"github.com/rackroll/rackroll/workflows/remediation"
	"github.com/rackroll/rackroll/workflows/replaceroles"
	"github.com/rackroll/rackroll/workflows/rollout"
	"github.com/rackroll/rackroll/workflows/upgrade"
	"github.com/rackroll/rackroll/workflows/upgrade/server"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// pinned: a run replays only on the build it started on, so a new build
// may change workflow code for the runs it starts without breaking the
// runs in flight. The long runs (the upgrade, the ledger, the monitor)
// move to a new build on purpose, by continue-as-new at a safe point; the
// others finish where they started (docs/self-upgrade.md). The SDK sends
// the behaviour only from a versioned worker; an unversioned one (the
// default) ignores it.
const pinned = workflow.VersioningBehaviorPinned

// registered is every rackroll workflow under its type name (internal/api):
// the one list Register, its test and the architecture test's family list
// read (docs/design.md#adding-a-workflow).
var registered = []struct {
	name string
	fn   any
}{
	{api.ClusterWorkflowName, cluster.ClusterWorkflow},
	{api.RuntimeUpgradeWorkflowName, upgrade.RuntimeUpgradeWorkflow},
	{api.RackUpgradeWorkflowName, upgrade.RackUpgradeWorkflow},
	{api.ServerUpgradeWorkflowName, server.ServerUpgradeWorkflow},
	{api.BMMActionWorkflowName, actions.BMMActionWorkflow},
	{api.TroubleshootWorkflowName, actions.TroubleshootWorkflow},
	{api.HealthMonitorWorkflowName, remediation.HealthMonitorWorkflow},
	{api.RemediationWorkflowName, remediation.RemediationWorkflow},
	{api.KCPFailoverWorkflowName, remediation.KCPFailoverWorkflow},
	{api.ReplaceRolesWorkflowName, replaceroles.ReplaceRolesWorkflow},
	{api.KeysetWorkflowName, keysets.KeysetWorkflow},
	{api.FleetWorkflowName, rollout.FleetWorkflow},
}

// Register puts every rackroll workflow on r under its docs/design.md name.
func Register(r worker.WorkflowRegistry) {
	for _, w := range registered {
		r.RegisterWorkflowWithOptions(w.fn, workflow.RegisterOptions{Name: w.name, VersioningBehavior: pinned})
	}
}

// Families maps each workflow package (its import path) to the type names
// of the workflows it holds: what internal/archtest treats as the workflow
// families, read from the registration list so that the two never differ.
func Families() map[string][]string {
	out := map[string][]string{}
	for _, w := range registered {
		pkg := packageOf(w.fn)
		out[pkg] = append(out[pkg], w.name)
	}
	return out
}

// packageOf is the import path of the package that declares function fn
// ("github.com/x/y/workflows/upgrade.RuntimeUpgradeWorkflow" → ".../upgrade").
func packageOf(fn any) string {
	name := runtime.FuncForPC(reflect.ValueOf(fn).Pointer()).Name()
	dot := strings.LastIndex(name, "/") + 1
	return name[:dot+strings.Index(name[dot:], ".")]
}
