package cluster

// The workflow.GetVersion change IDs of this package, oldest first: the
// date each was introduced and why. Every GetVersion site uses one by
// name; workflows/versions_test.go fails on an ID not listed here, an ID
// listed twice, and a run that could record more than the budget
// (docs/design.md#change-ids, where retiring an ID is described too).
const (
	// changeRegisterReplans (2026-11-23): new BMMs join a running ledger with
	// the re-placement plan's roles (never an extra KCP or spare) instead of
	// the placement of the new inventory on its own. The initial registration
	// records it bare; each register Update records its own ID, this plus ":"
	// and the Update's ID (registerUpdateChangeID), so a ledger that ran
	// before the change replays its old registrations the old way and takes
	// the new one for every registration after it. That is the one ID a run
	// records a variable number of times: workflows/versions_test.go counts
	// it per registration (docs/design.md#change-ids).
	changeRegisterReplans = "register-replans"
	// changeUnhealthyMarkState (2026-11-25): the Unhealthy mark is ledger state, not the status message.
	changeUnhealthyMarkState = "unhealthy-mark-state"
	// changeLedgerRestoresNodeLabels (2026-11-27): a node seen without the labels the ledger owns (registered anew by its kubelet) is labelled again.
	changeLedgerRestoresNodeLabels = "ledger-restores-node-labels"
	// changeLedgerMovesBuild (2026-11-27): a ledger whose deployment has another current build continues as new onto it, once its handlers finished (docs/self-upgrade.md).
	changeLedgerMovesBuild = "ledger-moves-build"
	// changeLedgerPacksCarry (2026-11-29): the ledger hands its next run its inventory, placement and state gzipped
	// (api.ClusterInput Packed, carry format 3): 666 KiB of JSON at 1,088 servers becomes a tenth of it.
	changeLedgerPacksCarry = "ledger-packs-carry"
	// changeLedgerShortRuns (2026-11-30): a run continues as new at RunEvents events, so a replay reads a page or two, not sixteen (runs.go).
	changeLedgerShortRuns = "ledger-short-runs"
)
