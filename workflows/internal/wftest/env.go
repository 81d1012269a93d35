package wftest

import (
	"log/slog"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/stretchr/testify/require"
	sdklog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"
)

// The one way a workflow test gets its SDK test environment.

// NewEnv is a fresh test environment, nothing registered.
func NewEnv() *testsuite.TestWorkflowEnvironment {
	var s testsuite.WorkflowTestSuite
	return s.NewTestWorkflowEnvironment()
}

// QuietEnv is NewEnv without the SDK's log: the property tests run
// thousands of scenarios.
func QuietEnv() *testsuite.TestWorkflowEnvironment {
	var s testsuite.WorkflowTestSuite
	s.SetLogger(sdklog.NewStructuredLogger(slog.New(slog.DiscardHandler)))
	return s.NewTestWorkflowEnvironment()
}

// NewEnv is a test environment with the fake site's activities registered.
func (f *FakeSite) NewEnv() *testsuite.TestWorkflowEnvironment {
	env := NewEnv()
	f.Register(env)
	return env
}

// SiteEnv is the usual start of a workflow test: the fake site placed from
// the inventory at path, and an environment over it.
func SiteEnv(t *testing.T, path string) (*FakeSite, *testsuite.TestWorkflowEnvironment) {
	t.Helper()
	f := NewFakeSite(t, path)
	return f, f.NewEnv()
}

// Query reads the running workflow's status query into out.
func Query(t *testing.T, env *testsuite.TestWorkflowEnvironment, out any) {
	t.Helper()
	v, err := env.QueryWorkflow(api.QueryStatus)
	require.NoError(t, err)
	require.NoError(t, v.Get(out))
}

// EachPause calls fn with the upgrade's status at each simulated minute,
// up to minutes, that finds it paused (an operator watching it).
func EachPause(t *testing.T, env *testsuite.TestWorkflowEnvironment, minutes int, fn func(st api.UpgradeStatus)) {
	for i := 1; i <= minutes; i++ {
		env.RegisterDelayedCallback(func() {
			v, err := env.QueryWorkflow(api.QueryStatus)
			if err != nil {
				return // not started yet, or ended
			}
			var st api.UpgradeStatus
			require.NoError(t, v.Get(&st))
			if st.DetailedStatus == model.ClusterUpdatePaused {
				fn(st)
			}
		}, time.Duration(i)*time.Minute)
	}
}
