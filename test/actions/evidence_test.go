package actions_test

import (
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/lab/faults"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A restart succeeds only once the node booted again; one the BMC answers
// and ignores fails within the step's limit (30s here; asserted under 3
// minutes), naming the BMM and what the BMC showed, and the ledger never
// says it restarted.
func TestE2ERestartNeedsEvidence(t *testing.T) {
	t.Parallel()
	env := e2e.Start(t, "../../examples/two-rack.yaml", e2e.Options{})
	ctx := env.Context(5 * time.Minute)
	kc := env.Clientset(ctx)
	bootID := func(node string) string {
		n, err := kc.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
		require.NoError(t, err)
		return n.Status.NodeInfo.BootID
	}
	restart := func(bmm string, seq int) (api.ActionResult, error) {
		var res api.ActionResult
		run := env.StartAction(ctx, seq, api.ActionInput{BMM: bmm, Action: api.ActionRestart, TimeLimit: 30 * time.Second})
		return res, run.Get(ctx, &res)
	}

	t.Run("honest restart", func(t *testing.T) {
		const name = "rack1-c1"
		before := bootID(name)
		require.NotEmpty(t, before)
		res, err := restart(name, 2601)
		require.NoError(t, err)
		require.Contains(t, res.Message, "restarted")
		require.NotEqual(t, before, bootID(name), "succeeded only once the node booted again")
		require.Equal(t, 1, env.Lab.Events.Count(events.Reset, name))
		env.RecordHistories(api.ActionID(env.Cluster, name, 2601))
	})

	t.Run("reset ignored", func(t *testing.T) {
		const name = "rack1-c2"
		before := bootID(name)
		require.NoError(t, env.Lab.SetFault(name, faults.ResetIgnored, 0, false))
		began := time.Now()
		res, err := restart(name, 2602)
		require.Error(t, err)
		t.Logf("after %s: %v", time.Since(began).Round(time.Second), err)
		require.Less(t, time.Since(began), 3*time.Minute)
		for _, want := range []string{name, "accepted ForceRestart (204) but showed no change", "did not boot again"} {
			require.Contains(t, err.Error(), want)
		}
		require.NotContains(t, res.Message, "restarted "+name)
		require.Equal(t, before, bootID(name), "the machine never restarted")
		b := env.BMM(name)
		require.Equal(t, model.BMMError, b.DetailedStatus)
		require.Contains(t, b.DetailedStatusMessage, "showed no change")
		env.RecordHistories(api.ActionID(env.Cluster, name, 2602))
	})
}
