package ledger

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/keyset"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
)

// KeysInput names the cluster whose BMM keysets are re-established and,
// for the run's description, the server reinstalled and how.
type KeysInput struct {
	Cluster string `json:"cluster"`
	BMM     string `json:"bmm"`
	Why     string `json:"why"`
}

// KeysAfterReinstall starts the cluster's keyset nodes run
// (api.KeysetNodesID, afterReinstall), or tells the one running to apply
// the set again: a reinstalled server has no rackroll user. Start or
// signal, whichever holds now — a run that closes between the two is
// started again — so a fresh run carries no signal that would make it
// apply twice. It returns the workflow ID. A workflow cannot do this
// itself when two of them may do it at once (a child started by one
// cannot be signalled by another before it runs, in the SDK's test
// environment), so an activity does, with the worker's client.
func (a *Activities) KeysAfterReinstall(ctx context.Context, in KeysInput) (string, error) {
	id := api.KeysetNodesID(in.Cluster)
	opts := client.StartWorkflowOptions{
		ID:                       id,
		TaskQueue:                api.TaskQueue,
		WorkflowIDReusePolicy:    enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_FAIL,
		// Without it the client answers a running run as if it started it.
		WorkflowExecutionErrorWhenAlreadyStarted: true,
		StaticSummary:                            "Re-establish the BMM keysets on the nodes of " + in.Cluster + " after " + in.BMM + " was reinstalled",
		StaticDetails: "Every node gets the ledger's BMM keysets again; " + in.BMM + " lost its users with its OS (" + in.Why +
			"). Nothing when no BMM keyset is active.",
		TypedSearchAttributes: temporal.NewSearchAttributes(
			temporal.NewSearchAttributeKeyKeyword(api.SearchAttrCluster).ValueSet(in.Cluster),
			temporal.NewSearchAttributeKeyKeyword(api.SearchAttrOperation).ValueSet("keyset")),
	}
	for try := 0; try < 3; try++ {
		_, err := a.Client.ExecuteWorkflow(ctx, opts, api.KeysetWorkflowName, api.KeysetInput{Cluster: in.Cluster, Nodes: true, AfterReinstall: true})
		var started *serviceerror.WorkflowExecutionAlreadyStarted
		if !errors.As(err, &started) {
			return id, err
		}
		err = a.Client.SignalWorkflow(ctx, id, "", api.SignalKeysetChanged, nil)
		var gone *serviceerror.NotFound
		if !errors.As(err, &gone) {
			return id, err
		}
	}
	return id, errors.New("the keyset nodes run " + id + " kept closing between its start and its signal")
}

// RecheckBMCAccounts tells the run of every BMC keyset of the cluster
// still active that in.BMM's BMC may have lost its accounts (a Replace
// gave it a new BMC, a firmware update reset it): the run applies the
// keyset on that BMC again and records its outcome
// (api.SignalKeysetRecheck). A keyset without a running run gets one,
// which applies it everywhere. It returns the runs told.
func (a *Activities) RecheckBMCAccounts(ctx context.Context, in KeysInput) ([]string, error) {
	v, err := a.Client.QueryWorkflow(ctx, api.ClusterID(in.Cluster), "", api.QueryKeysets)
	if err != nil {
		return nil, notRegistered(in.Cluster, err)
	}
	var list []keyset.Keyset
	if err := v.Get(&list); err != nil {
		return nil, err
	}
	var told []string
	for _, k := range keyset.Rechecked(list, time.Now()) {
		id := api.KeysetID(in.Cluster, k)
		_, err := a.Client.SignalWithStartWorkflow(ctx, id, api.SignalKeysetRecheck, in.BMM, client.StartWorkflowOptions{
			ID: id, TaskQueue: api.TaskQueue, WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
			StaticSummary: "Apply keyset " + k + " to the BMCs of " + in.Cluster,
			StaticDetails: "Started to check " + in.BMM + "'s BMC again (" + in.Why + "): a run applies the keyset on every BMC.",
			TypedSearchAttributes: temporal.NewSearchAttributes(
				temporal.NewSearchAttributeKeyKeyword(api.SearchAttrCluster).ValueSet(in.Cluster),
				temporal.NewSearchAttributeKeyKeyword(api.SearchAttrOperation).ValueSet("keyset")),
		}, api.KeysetWorkflowName, api.KeysetInput{Cluster: in.Cluster, Name: k})
		if err != nil {
			return told, fmt.Errorf("keyset %s: %w", k, err)
		}
		told = append(told, id)
	}
	return told, nil
}
