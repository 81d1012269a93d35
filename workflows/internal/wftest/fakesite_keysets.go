package wftest

import (
	"github.com/rackroll/rackroll/internal/api"
	"go.temporal.io/sdk/workflow"
)

// keysetRun stands for a keyset's run started by the workflow under test
// (the upgrade re-establishing the BMM keysets): it records what it was
// asked and ends. workflows/keysets tests the run itself.
func (f *FakeSite) keysetRun(_ workflow.Context, in api.KeysetInput) (api.KeysetResult, error) {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	f.KeysetRuns = append(f.KeysetRuns, in)
	return api.KeysetResult{}, nil
}
