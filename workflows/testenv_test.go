package workflows

import (
	"log/slog"
	"testing"

	sdklog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"
)

// The one way a workflow test gets its SDK test environment.

// newEnv is a fresh test environment, nothing registered.
func newEnv() *testsuite.TestWorkflowEnvironment {
	var s testsuite.WorkflowTestSuite
	return s.NewTestWorkflowEnvironment()
}

// quietEnv is newEnv without the SDK's log: the property tests run
// thousands of scenarios.
func quietEnv() *testsuite.TestWorkflowEnvironment {
	var s testsuite.WorkflowTestSuite
	s.SetLogger(sdklog.NewStructuredLogger(slog.New(slog.DiscardHandler)))
	return s.NewTestWorkflowEnvironment()
}

// newEnv is a test environment with the fake site's activities registered.
func (f *fakeSite) newEnv() *testsuite.TestWorkflowEnvironment {
	env := newEnv()
	f.register(env)
	return env
}

// siteEnv is the usual start of a workflow test: the fake site placed from
// the inventory at path, and an environment over it.
func siteEnv(t *testing.T, path string) (*fakeSite, *testsuite.TestWorkflowEnvironment) {
	t.Helper()
	f := newFakeSite(t, path)
	return f, f.newEnv()
}
