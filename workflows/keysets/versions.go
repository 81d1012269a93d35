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
	// ChangeExpiry (2026-11-27): a run removes the access at the
	// expiration (expiry.go): once applied, it waits for the keyset's
	// expiration (the nodes run: the earliest of the BMM keysets') and
	// then disables a BMC keyset's accounts, or applies the BMM keysets
	// again without the expired one; an expired BMC keyset's run disables
	// its accounts. A run recorded before ended once applied and left an
	// expired keyset as it was.
	ChangeExpiry = "keyset-expiry"
	// changePendingReinstall (2026-11-29): a node whose server is being reinstalled is not given the pod (its OS is
	// going): its outcome is recorded pending, saying so; the reinstall's end starts the run again
	// (kernel.KeysAfterReinstall).
	changePendingReinstall = "pending-reinstall"
	// changePages (2026-11-29): a run reads the ledger a page of BMMs at a time (kernel.LedgerOf.ReadPage, the
	// keysets without their outcomes) rather than whole, so no read in its history grows with the site.
	changePages = "keyset-pages"
	// changeRecheck (2026-11-29): a BMC keyset's run waiting for its expiration applies the keyset again on a BMC a
	// recheck signal names (a Replace's new BMC, a BMC firmware update: recheck.go).
	changeRecheck = "keyset-recheck"
	// changePassContinues (2026-11-29): a pass whose history reaches passHistory events, or that meets a new current
	// rackroll build, continues as new between two waves (onto that build), the next run going on from the next BMM
	// (api.KeysetResume): no run's history grows with the site, and no run waits for its pass's end to move.
	changePassContinues = "keyset-pass-continues"
)
