package kernel

import (
	"github.com/rackroll/rackroll/activities/ledger"
	"github.com/rackroll/rackroll/internal/api"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// ReestablishKeys starts the cluster's keyset nodes run, so servers whose
// OS was reinstalled get the BMM keysets again (their users went with
// their disk: docs/keysets.md#after-a-reinstall); one already running is
// told to apply the set again. It is started, not waited for (abandoned
// when the caller closes): the outcomes are the keysets', in the ledger.
// The run applies the ledger's whole set to every node and does nothing
// when no BMM keyset is active. summary and details describe it in the
// UI. The error says the run was neither started nor told; the caller
// names `starter keyset apply` as what is left to do.
func ReestablishKeys(ctx workflow.Context, cluster, summary, details string) error {
	id := api.KeysetNodesID(cluster)
	cctx := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
		WorkflowID:            id,
		TaskQueue:             api.TaskQueue,
		ParentClosePolicy:     enumspb.PARENT_CLOSE_POLICY_ABANDON,
		WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
		StaticSummary:         summary,
		StaticDetails:         details,
		TypedSearchAttributes: temporal.NewSearchAttributes(
			temporal.NewSearchAttributeKeyKeyword(api.SearchAttrCluster).ValueSet(cluster),
			temporal.NewSearchAttributeKeyKeyword(api.SearchAttrOperation).ValueSet("keyset")),
	})
	fut := workflow.ExecuteChildWorkflow(cctx, api.KeysetWorkflowName, api.KeysetInput{Cluster: cluster, Nodes: true, AfterReinstall: true})
	err := fut.GetChildWorkflowExecution().Get(ctx, nil)
	if temporal.IsWorkflowExecutionAlreadyStartedError(err) {
		err = workflow.SignalExternalWorkflow(ctx, id, "", api.SignalKeysetChanged, nil).Get(ctx, nil)
	}
	return err
}

// KeysAfterReinstall re-establishes the BMM keysets once bmm was
// reinstalled outside an upgrade (a Replace or reimage, a remediation's or
// failover's reprovision, a re-placement), behind ChangeKeysAfterReinstall:
// the ledger activity starts the nodes run or tells the running one
// (ledger.Activities.KeysAfterReinstall). A failure is logged with what to
// run; the reinstall stands.
func KeysAfterReinstall(ctx workflow.Context, cluster, bmm, why string) {
	if workflow.GetVersion(ctx, ChangeKeysAfterReinstall, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return
	}
	err := workflow.ExecuteActivity(LedgerOf(cluster).opts(ctx, "Re-establish the BMM keysets of "+cluster+" after "+bmm+" was reinstalled"),
		la.KeysAfterReinstall, ledger.KeysInput{Cluster: cluster, BMM: bmm, Why: why}).Get(ctx, nil)
	if err != nil {
		workflow.GetLogger(ctx).Warn("the BMM keysets were not re-established after a reinstall: run `starter keyset apply`", "cluster", cluster, "bmm", bmm, "error", err)
	}
}
