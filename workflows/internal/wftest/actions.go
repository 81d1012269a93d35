package wftest

import (
	"testing"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"
)

// NewActionSite is the fake site of the BMM action tests: four racks, and
// reimages logged with their version (an action reimages to the current one).
func NewActionSite(t *testing.T) *FakeSite {
	f := NewFakeSite(t, Example("four-rack.yaml"))
	f.versioned = true
	return f
}

// Env returns a test environment with Workflows (the action tests add
// the action workflows) and every mock;
// the top-level workflow runs under id.
func (f *FakeSite) Env(t *testing.T, id string) *testsuite.TestWorkflowEnvironment {
	env := NewEnv()
	env.SetStartWorkflowOptions(client.StartWorkflowOptions{ID: id})
	env.SetOnChildWorkflowStartedListener(func(info *workflow.Info, _ workflow.Context, _ converter.EncodedValues) {
		f.Mu.Lock()
		defer f.Mu.Unlock()
		f.Children = append(f.Children, info.WorkflowExecution.ID)
	})
	f.Register(env)
	return env
}

// RunAction runs BMMActionWorkflow (registered in Workflows) to its end.
func (f *FakeSite) RunAction(t *testing.T, in api.ActionInput) (api.ActionResult, error) {
	return RunActionIn(t, f.Env(t, api.ActionID(in.Cluster, in.BMM, 1)), in)
}

// RunActionIn runs BMMActionWorkflow in env (prepared by the caller) to
// its end: its result, or the error it ended with.
func RunActionIn(t *testing.T, env *testsuite.TestWorkflowEnvironment, in api.ActionInput) (api.ActionResult, error) {
	env.ExecuteWorkflow(api.BMMActionWorkflowName, in)
	require.True(t, env.IsWorkflowCompleted())
	var res api.ActionResult
	if err := env.GetWorkflowError(); err != nil {
		return res, err
	}
	require.NoError(t, env.GetWorkflowResult(&res))
	return res, nil
}
