package upgrade

import (
	"github.com/rackroll/rackroll/internal/api"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// reestablishKeys starts the cluster's nodes run once the upgrade has
// ended, so the reinstalled servers get the BMM keysets again: the
// operator documents say the keysets "have to be re-established with the
// new software. This process starts once the runtime upgrade completes";
// a server not yet upgraded kept its keys meanwhile (docs/keysets.md).
// The run applies the ledger's whole set to every node (one pod carries
// all of a node's users) and does nothing when no BMM keyset is active.
// One already running is told to apply the set again. It is started, not
// waited for: its outcomes are the keysets', in the ledger.
func (u *upgrade) reestablishKeys(ctx workflow.Context) {
	if workflow.GetVersion(ctx, changeKeysAfterUpgrade, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return
	}
	id := api.KeysetNodesID(u.in.Cluster)
	cctx := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
		WorkflowID:            id,
		TaskQueue:             api.TaskQueue,
		ParentClosePolicy:     enumspb.PARENT_CLOSE_POLICY_ABANDON,
		WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
		StaticSummary:         "Re-establish the BMM keysets on the nodes of " + u.in.Cluster + " after its runtime upgrade",
		StaticDetails:         "Every node gets the ledger's BMM keysets again (the reinstalled ones lost their users with their OS), once the upgrade to " + u.in.TargetVersion + " ended; nothing when no BMM keyset is active.",
		TypedSearchAttributes: temporal.NewSearchAttributes(
			temporal.NewSearchAttributeKeyKeyword(api.SearchAttrCluster).ValueSet(u.in.Cluster),
			temporal.NewSearchAttributeKeyKeyword(api.SearchAttrOperation).ValueSet("keyset")),
	})
	fut := workflow.ExecuteChildWorkflow(cctx, api.KeysetWorkflowName, api.KeysetInput{Cluster: u.in.Cluster, Nodes: true, AfterReinstall: true})
	err := fut.GetChildWorkflowExecution().Get(ctx, nil)
	if temporal.IsWorkflowExecutionAlreadyStartedError(err) {
		err = workflow.SignalExternalWorkflow(ctx, id, "", api.SignalKeysetChanged, nil).Get(ctx, nil)
	}
	if err != nil {
		workflow.GetLogger(ctx).Warn("the BMM keysets were not re-established after the upgrade: run `starter keyset apply`", "cluster", u.in.Cluster, "error", err)
		u.st.KeysNote = "BMM keysets not re-established: " + err.Error() + "; run `starter keyset apply`"
		return
	}
	u.st.KeysNote = "BMM keysets being re-established on every node: workflow " + id
}
