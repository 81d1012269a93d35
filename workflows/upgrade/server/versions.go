package server

// The workflow.GetVersion change IDs of the server child
// (ServerUpgradeWorkflow), oldest first: the date each was introduced and
// why. A server run is a run of its own, so it records only these and
// kernel's; the parent and rack runs keep theirs in workflows/upgrade.
// They moved here from the upgrade package unchanged (same strings):
// recorded histories replay. workflows/versions_test.go checks the list
// (docs/design.md#change-ids).
const (
	// changeServerReadsOneBmm (2026-11-21): a server child reads only its BMM's slice of the ledger, not the whole site.
	changeServerReadsOneBmm = "server-reads-one-bmm"
	// changeServerSkipsOutOfService (2026-11-23): a server marked after the plan was made is never touched.
	changeServerSkipsOutOfService = "server-skips-out-of-service"
	// changeServerWaitsForRemediation (2026-11-23): a server refused because a remediation holds it waits for the remediation, once.
	changeServerWaitsForRemediation = "server-waits-for-remediation"
	// changeServerRecordsVersionWhenCancelled (2026-11-23): a server upgraded when its run is cancelled still records its new version.
	changeServerRecordsVersionWhenCancelled = "server-records-version-when-cancelled"
	// changeServerUncordonsLeftBehind (2026-11-23): a server an earlier run left cordoned, since brought back, is uncordoned rather than reimaged.
	changeServerUncordonsLeftBehind = "server-uncordons-left-behind"
	// changeServerFirmware (2026-11-27): a server below the target's firmware baseline gets it after its drain, before its reimage.
	changeServerFirmware = "server-firmware"
	// changeServerFirmwareAtTarget (2026-11-27): a server already at the target but below its baseline gets the firmware in a window of its own.
	changeServerFirmwareAtTarget = "fw-at-target"
	// changeServerRechecksAccounts (2026-11-29): after the BMC's own firmware, every active BMC keyset's run applies
	// its accounts on that BMC again (kernel.RecheckBMCAccounts).
	changeServerRechecksAccounts = "server-rechecks-accounts"
	// changeServerLedgerLocal (2026-11-29): the server's ledger calls (its read, lease, records), and a KCP's gate
	// reads on a site without a queue of its own, are local activities (kernel.LocalLedger, kernel.SiteRead):
	// about eight a server, each two round trips through the server less.
	changeServerLedgerLocal = "server-ledger-local"
)
