package main

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
)

// End to end through the starter's own code path (lease first, then start).
func TestE2EBMMStarter(t *testing.T) {
	env := e2e.Start(t, "../examples/four-rack.yaml", e2e.Options{})
	ctx := env.Context(3 * time.Minute)
	var kcp []string
	for _, b := range env.State().Cluster.BMMs {
		if b.HasRole(model.RoleKCP) {
			kcp = append(kcp, b.Name)
		}
	}
	require.Len(t, kcp, 3)

	t.Run("two KCP restarts at once: exactly one is accepted", func(t *testing.T) {
		var wg sync.WaitGroup
		runs := make([]client.WorkflowRun, 2)
		errs := make([]error, 2)
		for i := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				runs[i], errs[i] = startAction(ctx, env.Client, api.ActionInput{Cluster: env.Cluster, BMM: kcp[i], Action: api.ActionRestart})
			}()
		}
		wg.Wait()
		ok, refused := 0, 1
		if errs[0] != nil {
			ok, refused = 1, 0
		}
		require.NoError(t, errs[ok])
		require.Error(t, errs[refused], "one of two concurrent KCP disruptions must be refused")
		require.ErrorContains(t, errs[refused], "restart of "+kcp[refused]+" refused: bmm "+kcp[refused]+" is a KCP server and "+runs[ok].GetID())
		var ce *codedError
		require.True(t, errors.As(errs[refused], &ce))
		require.Equal(t, exitError, ce.code)
		require.Regexp(t, `^action:site-a:`+kcp[ok]+`:\d+$`, runs[ok].GetID(), "the ledger assigned the id")

		res, err := waitAction(ctx, runs[ok])
		require.NoError(t, err)
		require.Contains(t, res.Message, "restarted "+kcp[ok])
		require.Empty(t, env.State().Leases)

		// Once it is done, the other KCP may go.
		run, err := startAction(ctx, env.Client, api.ActionInput{Cluster: env.Cluster, BMM: kcp[refused], Action: api.ActionRestart})
		require.NoError(t, err)
		_, err = waitAction(ctx, run)
		require.NoError(t, err)
	})

	t.Run("a start that fails gives the lease back", func(t *testing.T) {
		const name = "rack3-c1"
		// Something already runs under the id the ledger will hand out next.
		next := api.ActionID(env.Cluster, name, env.State().ActionSeq+1)
		squatter, err := env.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: next, TaskQueue: api.TaskQueue},
			api.TroubleshootWorkflowName, api.TroubleshootInput{Cluster: env.Cluster, BMM: name, Problem: api.ProblemHardware})
		require.NoError(t, err)
		defer env.Client.TerminateWorkflow(context.Background(), squatter.GetID(), "", "test done")
		_, err = startAction(ctx, env.Client, api.ActionInput{Cluster: env.Cluster, BMM: name, Action: api.ActionCordon})
		require.ErrorContains(t, err, "its lease was released")
		require.Empty(t, env.State().Leases)
	})

	t.Run("a failed action exits 2 with the reason", func(t *testing.T) {
		require.NoError(t, env.Lab.SetFault("rack3-c2", "power-on-fails", 0, false))
		run, err := startAction(ctx, env.Client, api.ActionInput{Cluster: env.Cluster, BMM: "rack3-c2", Action: api.ActionPowerOff, SkipShutdown: true})
		require.NoError(t, err)
		_, err = waitAction(ctx, run)
		require.NoError(t, err)
		run, err = startAction(ctx, env.Client, api.ActionInput{Cluster: env.Cluster, BMM: "rack3-c2", Action: api.ActionStart})
		require.NoError(t, err)
		_, err = waitAction(ctx, run)
		var ce *codedError
		require.True(t, errors.As(err, &ce), "%v", err)
		require.Equal(t, exitFailed, ce.code)
		require.ErrorContains(t, err, "start of rack3-c2 failed: power on")
		require.Empty(t, env.State().Leases)
	})
}
