package keysets

// The workflow.GetVersion change IDs of this package, oldest first: the
// date each was introduced and why (workflows/versions_test.go checks the
// list and the budget; docs/design.md#change-ids). Besides these, its
// runs record kernel's table-bounds ID (kernel.CallAttempt).
const (
	// ChangeNodeKeys (2026-11-27): KeysetWorkflow run with Nodes applies
	// the BMM keysets to every node (applyNodes). A run recorded before
	// it never had Nodes; the branch is behind the ID all the same, so
	// that a later change of it has a version to go from.
	ChangeNodeKeys = "keyset-node-keys"
)
