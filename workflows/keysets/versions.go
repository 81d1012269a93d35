package keysets

// The workflow.GetVersion change IDs of this package, oldest first: the
// date each was introduced and why (workflows/versions_test.go checks the
// list and the budget; docs/design.md#change-ids). None yet: the workflow
// is new (2026-11-27), and its runs record only kernel's table-bounds ID
// (kernel.CallAttempt).
const ()
