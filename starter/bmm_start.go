package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/lease"
	"github.com/rackroll/rackroll/internal/temporalerr"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
)

// startAction asks the ledger for the action's lease first, with an empty
// holder: the ledger answers synchronously with a refusal and its reason
// (exit 1), or with the id it assigned (action:<cluster>:<bmm>:<n>). Then
// it starts BMMActionWorkflow under that id; the workflow confirms the
// lease as its own. If the start fails, the lease is handed back.
func startAction(ctx context.Context, c client.Client, in api.ActionInput) (client.WorkflowRun, error) {
	if err := in.Validate(); err != nil {
		return nil, err
	}
	id, err := acquireActionLease(ctx, c, in)
	if err != nil {
		return nil, err
	}
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:                                       id,
		TaskQueue:                                api.TaskQueue,
		WorkflowIDConflictPolicy:                 enumspb.WORKFLOW_ID_CONFLICT_POLICY_FAIL,
		WorkflowExecutionErrorWhenAlreadyStarted: true, // never attach to another run of this id
		StaticSummary:                            api.ActionSummary(in.Action, in.BMM, in.Cluster),
		StaticDetails:                            api.ActionDetails(in),
		TypedSearchAttributes:                    temporal.NewSearchAttributes(saCluster.ValueSet(in.Cluster), saOperation.ValueSet(in.Action)),
	}, api.BMMActionWorkflowName, in)
	if err != nil {
		// Nothing will hold this lease: give it back at once rather than
		// leave the BMM busy until the ledger's sweep notices.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		if rerr := releaseActionLease(rctx, c, in.Cluster, in.BMM, id); rerr != nil {
			return nil, fmt.Errorf("start %s: %w (and releasing its lease failed: %v; the ledger's sweep will drop it)", id, err, rerr)
		}
		return nil, fmt.Errorf("start %s: %w (its lease was released)", id, err)
	}
	return run, nil
}

// acquireActionLease returns the id the ledger assigned, or a refusal
// with exit code 1.
func acquireActionLease(ctx context.Context, c client.Client, in api.ActionInput) (string, error) {
	cluster, bmm, action := in.Cluster, in.BMM, in.Action
	h, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID: api.ClusterID(cluster),
		UpdateName: api.UpdateAcquireLease,
		Args: []any{lease.Request{BMM: bmm, Operation: lease.Operation(action),
			Force: in.Force, Reason: in.Reason, By: in.By}},
		WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	var res api.AcquireResult
	if err == nil {
		err = h.Get(ctx, &res)
	}
	if err != nil {
		var nf *serviceerror.NotFound
		if errors.As(err, &nf) {
			return "", fmt.Errorf("cluster %s is not registered (no running %s): run `starter cluster register --inventory FILE`", cluster, api.ClusterID(cluster))
		}
		return "", withCode(exitError, fmt.Errorf("%s of %s refused: %s", action, bmm, temporalerr.Message(err)))
	}
	return res.Holder, nil
}

func releaseActionLease(ctx context.Context, c client.Client, cluster, bmm, holder string) error {
	h, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID:   api.ClusterID(cluster),
		UpdateName:   api.UpdateReleaseLease,
		Args:         []any{api.ReleaseRequest{BMM: bmm, Holder: holder}},
		WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err != nil {
		return err
	}
	return h.Get(ctx, nil)
}

// waitAction waits for an action: its result, or exit 2 with the reason.
func waitAction(ctx context.Context, run client.WorkflowRun) (api.ActionResult, error) {
	var res api.ActionResult
	if err := run.Get(ctx, &res); err != nil {
		return res, withCode(exitFailed, fmt.Errorf("%s", temporalerr.Message(err)))
	}
	return res, nil
}
