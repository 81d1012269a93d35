// Package workflows holds rackroll's Temporal workflows: they decide, in
// the order the operator rules give (docs/behaviour.md), what happens to a
// site, and leave every I/O to the activities. This package is only the
// registration: Register puts each workflow of its one list on a worker
// under its type name in internal/api, and Families gives the architecture
// test the workflow packages from that same list. Which workflow lives in
// which package, with its id, signals, queries and updates, is
// docs/design.md#the-workflows-and-their-ids; adding one is
// docs/design.md#adding-a-workflow.
//
// The workflows live in one package per family (the upgrade's server child
// in one of its own), around a shared kernel. Direction: a family imports
// only kernel (and internal/, activities/); no family imports another or
// this package, and kernel imports no family. A workflow starts another by
// its type name from internal/api, never by its function. internal/archtest
// enforces this. Each package lists its workflow.GetVersion change IDs
// (docs/design.md#change-ids).
//
// Tests: unit tests run in the SDK's test environment beside the code, on
// the fake site of internal/wftest (test harness only). This package keeps
// the tests that span families — workflows of several families on one
// fake site, the convergence property, the replay of the recorded
// histories in testdata/histories (docs/reliability.md#workflow-histories),
// determinism and the change-ID budget. The end-to-end tests that need the
// lab live under test/, set up by test/e2e.
package workflows
