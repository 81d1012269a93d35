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
	return e.StartUpgradeInput(ctx, api.UpgradeInput{TargetVersion: "4.2.0", UpdateStrategy: s,
		DrainTimeout: 5 * time.Second, VMShutdownTimeout: 5 * time.Second})
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
	require.NoError(e.T, e.Update(ctx, api.UpgradeID(e.Cluster), api.UpdateContinue, nil))
}
