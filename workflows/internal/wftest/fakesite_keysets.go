package wftest

import (
	"context"

	"github.com/rackroll/rackroll/activities/ledger"
	"github.com/rackroll/rackroll/internal/api"
	"go.temporal.io/sdk/testsuite"
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

// mockPages answers the ledger's page reads (keyset runs walking every BMM).
func (f *FakeSite) mockPages(env *testsuite.TestWorkflowEnvironment) {
	f.answer(env, la.ReadPage, "ReadPage", func(_ context.Context, in ledger.ReadPageInput) (api.PageResult, error) {
		f.Mu.Lock()
		defer f.Mu.Unlock()
		st, total := f.snapshot().Page(in.Page.From, in.Page.N)
		return api.PageResult{State: st, Total: total}, nil
	})
}

// mockKeys answers the ledger activities that start (or tell) the nodes
// run after a reinstall — recording the run it asks for, as keysetRun
// does — and that ask the BMC keysets' runs to check a BMC again
// (Rechecked).
func (f *FakeSite) mockKeys(env *testsuite.TestWorkflowEnvironment) {
	f.answer(env, la.KeysAfterReinstall, "KeysAfterReinstall", func(_ context.Context, in ledger.KeysInput) (string, error) {
		f.Mu.Lock()
		defer f.Mu.Unlock()
		f.KeysetRuns = append(f.KeysetRuns, api.KeysetInput{Cluster: in.Cluster, Nodes: true, AfterReinstall: true})
		return api.KeysetNodesID(in.Cluster), nil
	})
	f.answer(env, la.RecheckBMCAccounts, "RecheckBMCAccounts", func(_ context.Context, in ledger.KeysInput) ([]string, error) {
		f.Mu.Lock()
		defer f.Mu.Unlock()
		f.Rechecked = append(f.Rechecked, in)
		return nil, nil
	})
}
