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
// their disk: docs/keysets-nodes.md#after-any-other-reinstall); one already running is
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

// RecheckBMCAccounts asks the run of every active BMC keyset to apply it
// again on bmm's BMC, which may have lost its accounts (why: a Replace's
// new BMC, a BMC firmware update): the ledger activity signals each run
// (ledger.Activities.RecheckBMCAccounts). It records no change ID: each
// family calls it behind its own GetVersion. A failure is logged with
// what to run; what the server did stands.
func RecheckBMCAccounts(ctx workflow.Context, cluster, bmm, why string) {
	err := workflow.ExecuteActivity(LedgerOf(cluster).opts(ctx, "Check the BMC keysets' accounts on "+bmm+" again: "+why),
		la.RecheckBMCAccounts, ledger.KeysInput{Cluster: cluster, BMM: bmm, Why: why}).Get(ctx, nil)
	if err != nil {
		workflow.GetLogger(ctx).Warn("the BMC keysets were not checked again on a BMC that may have lost its accounts: run `starter keyset apply` for each",
			"cluster", cluster, "bmm", bmm, "why", why, "error", err)
	}
}
