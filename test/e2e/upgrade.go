package e2e

import (
	"context"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
)

// StartUpgradeWith starts a runtime upgrade to 4.2.0 with strategy s and
// 5 s drain and VM shutdown bounds.
func (e *Env) StartUpgradeWith(ctx context.Context, s model.UpdateStrategy) client.WorkflowRun {
	e.T.Helper()
	run, err := e.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: api.UpgradeID(e.Cluster), TaskQueue: api.TaskQueue},
		api.RuntimeUpgradeWorkflowName, api.UpgradeInput{Cluster: e.Cluster, TargetVersion: "4.2.0", UpdateStrategy: s,
			DrainTimeout: 5 * time.Second, VMShutdownTimeout: 5 * time.Second})
	require.NoError(e.T, err)
	return run
}

// UpgradeStatus queries the running upgrade's status (ok false when it
// does not answer now).
func (e *Env) UpgradeStatus(ctx context.Context) (st api.UpgradeStatus, ok bool) {
	v, err := e.Client.QueryWorkflow(ctx, api.UpgradeID(e.Cluster), "", api.QueryStatus)
	return st, err == nil && v.Get(&st) == nil
}

// AwaitPaused waits until the upgrade pauses and returns its status.
func (e *Env) AwaitPaused(ctx context.Context, within time.Duration, what string) api.UpgradeStatus {
	var st api.UpgradeStatus
	e.Eventually(within, what, func() bool {
		var ok bool
		st, ok = e.UpgradeStatus(ctx)
		return ok && st.DetailedStatus == model.ClusterUpdatePaused
	})
	return st
}

// Continue gives the paused upgrade the operator's word (continue-update).
func (e *Env) Continue(ctx context.Context) {
	e.T.Helper()
	h, err := e.Client.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{WorkflowID: api.UpgradeID(e.Cluster),
		UpdateName: api.UpdateContinue, WaitForStage: client.WorkflowUpdateStageCompleted})
	require.NoError(e.T, err)
	require.NoError(e.T, h.Get(ctx, nil))
}
