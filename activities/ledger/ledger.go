// Package ledger holds the activities through which workflows talk to the
// cluster ledger (ClusterWorkflow): workflows cannot send Updates to other
// workflows, so an activity does it with the worker's Temporal client. A
// refused lease comes back as a non-retryable error carrying the reason.
package ledger

import (
	"context"
	"errors"
	"fmt"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/lease"
	"github.com/rackroll/rackroll/internal/metrics"
	"github.com/rackroll/rackroll/internal/temporalerr"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
)

// ErrLeaseRejected is the ApplicationError type of a refused lease.
const ErrLeaseRejected = "LeaseRejected"

// ErrObservationStale is the ApplicationError type of a lease refused only
// because the observation it was asked on is too old (lease.Fresh): the
// requester observes again and asks again.
const ErrObservationStale = lease.StaleType

// Activities need the worker's client.
type Activities struct{ Client client.Client }

// AcquireInput names the cluster and the lease wanted.
type AcquireInput struct {
	Cluster string        `json:"cluster"`
	Request lease.Request `json:"request"`
}

// AcquireLease asks the ledger for a lease; the ledger's validator decides.
func (a *Activities) AcquireLease(ctx context.Context, in AcquireInput) (api.AcquireResult, error) {
	var out api.AcquireResult
	err := a.update(ctx, in.Cluster, api.UpdateAcquireLease, in.Request, &out)
	if rejected(err) && activity.IsActivity(ctx) {
		// Counted where the refusal arrives: every workflow asks through here.
		metrics.LeaseRejected(activity.GetMetricsHandler(ctx), in.Cluster, string(in.Request.Operation))
	}
	return out, err
}

// ReleaseInput names the lease to drop.
type ReleaseInput struct {
	Cluster string             `json:"cluster"`
	Request api.ReleaseRequest `json:"request"`
}

// ReleaseLease drops a lease (idempotent).
func (a *Activities) ReleaseLease(ctx context.Context, in ReleaseInput) error {
	return a.update(ctx, in.Cluster, api.UpdateReleaseLease, in.Request, nil)
}

// RecordInput carries facts observed about one BMM.
type RecordInput struct {
	Cluster string       `json:"cluster"`
	Patch   api.BMMPatch `json:"patch"`
}

// RecordBMM writes observed facts to the ledger.
func (a *Activities) RecordBMM(ctx context.Context, in RecordInput) error {
	return a.update(ctx, in.Cluster, api.UpdateRecordBMM, in.Patch, nil)
}

// ClusterStatusInput sets the cluster's detailed status.
type ClusterStatusInput struct {
	Cluster string                 `json:"cluster"`
	Status  api.ClusterStatusPatch `json:"status"`
}

// SetClusterStatus writes the cluster's detailed status (upgrade phases).
func (a *Activities) SetClusterStatus(ctx context.Context, in ClusterStatusInput) error {
	return a.update(ctx, in.Cluster, api.UpdateClusterStatus, in.Status, nil)
}

// ReadCluster returns the ledger's state through its query.
func (a *Activities) ReadCluster(ctx context.Context, cluster string) (api.ClusterState, error) {
	var st api.ClusterState
	v, err := a.Client.QueryWorkflow(ctx, api.ClusterID(cluster), "", api.QueryState)
	if err != nil {
		return st, notRegistered(cluster, err)
	}
	return st, v.Get(&st)
}

// ReadBMMInput names one BMM of a cluster.
type ReadBMMInput struct {
	Cluster string `json:"cluster"`
	BMM     string `json:"bmm"`
}

// ReadBMM returns the ledger's state narrowed to one BMM (query bmm).
func (a *Activities) ReadBMM(ctx context.Context, in ReadBMMInput) (api.ClusterState, error) {
	var st api.ClusterState
	v, err := a.Client.QueryWorkflow(ctx, api.ClusterID(in.Cluster), "", api.QueryBMM, in.BMM)
	if err != nil {
		return st, notRegistered(in.Cluster, err)
	}
	return st, v.Get(&st)
}

// HolderStates reports, for each workflow id, whether it is still running.
// A holder that does not exist (never started, or long gone) is not running.
func (a *Activities) HolderStates(ctx context.Context, ids []string) (map[string]bool, error) {
	out := make(map[string]bool, len(ids))
	for _, id := range ids {
		d, err := a.Client.DescribeWorkflowExecution(ctx, id, "")
		var nf *serviceerror.NotFound
		switch {
		case errors.As(err, &nf):
			out[id] = false
		case err != nil:
			return nil, fmt.Errorf("describe holder %s: %w", id, err)
		default:
			out[id] = d.GetWorkflowExecutionInfo().GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING
		}
	}
	return out, nil
}

func (a *Activities) update(ctx context.Context, cluster, name string, arg, out any) error {
	h, err := a.Client.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID:   api.ClusterID(cluster),
		UpdateName:   name,
		Args:         []any{arg},
		WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err != nil {
		return notRegistered(cluster, err)
	}
	if err := h.Get(ctx, out); err != nil {
		// Validator and handler refusals are answers, not outages: retrying
		// would only ask the same question again.
		var app *temporal.ApplicationError
		if errors.As(err, &app) && app.Type() == lease.StaleType {
			return temporal.NewNonRetryableApplicationError(temporalerr.Message(err), ErrObservationStale, nil)
		}
		if errors.As(err, &app) || isRejection(err) {
			return temporal.NewNonRetryableApplicationError(temporalerr.Message(err), ErrLeaseRejected, nil)
		}
		return err
	}
	return nil
}

// rejected reports whether err is the ledger refusing (not failing to answer).
func rejected(err error) bool {
	var app *temporal.ApplicationError
	return errors.As(err, &app) && (app.Type() == ErrLeaseRejected || app.Type() == ErrObservationStale)
}

// Stale reports whether err is a lease refused only because its observation
// was too old.
func Stale(err error) bool {
	var app *temporal.ApplicationError
	return errors.As(err, &app) && app.Type() == ErrObservationStale
}

func isRejection(err error) bool {
	var fp *serviceerror.FailedPrecondition
	return errors.As(err, &fp)
}

func notRegistered(cluster string, err error) error {
	var nf *serviceerror.NotFound
	if errors.As(err, &nf) {
		return temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("cluster %s is not registered (no running %s): run `starter cluster register`", cluster, api.ClusterID(cluster)),
			"ClusterNotRegistered", err)
	}
	return err
}

// KeysetOutcomesInput carries outcomes of a keyset's run.
type KeysetOutcomesInput struct {
	Cluster string                    `json:"cluster"`
	Request api.KeysetOutcomesRequest `json:"request"`
}

// RecordKeysetOutcomes writes what a KeysetWorkflow found on some BMCs; a
// refusal (the keyset has another version now) is not retried.
func (a *Activities) RecordKeysetOutcomes(ctx context.Context, in KeysetOutcomesInput) error {
	return a.update(ctx, in.Cluster, api.UpdateKeysetOutcomes, in.Request, nil)
}
