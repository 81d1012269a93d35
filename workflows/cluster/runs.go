package cluster

// RunEvents is where a ledger's run ends by default: it continues as new
// once its history reaches this many events, or earlier when the server
// suggests it (4,096 events or 4 MiB by default).
//
// Why so short: a worker that must replay the ledger (after a restart, an
// eviction, a failed task) reads its whole history. The server hands the
// first page, 256 event batches, with the task; past it, the SDK pages the
// rest while Updates keep arriving, and under load that read races the
// history: "premature end of stream" or "events past expected last event
// ID" (temporalio/temporal#7741, narrowed but not closed by #9325 and
// #9389). The failed task is replayed again, from the whole history,
// against the next Update: a spiral, which stopped a fleet benchmark of
// three 1,024-server sites at once. An Update to an idle ledger is one
// batch of about five events, so 1,000 events usually fit in the first
// page (under load a task's events come in more, smaller batches, and a
// run may need a second): tasks still fail now and then while the history
// moves, but a retry replays a page or two and the burst ends
// (docs/fleet.md#what-one-temporal-carries). The cost is a continue-as-new
// per ~200 Updates, each carrying the packed ledger (a tenth of its JSON).
const RunEvents = 1000

// runTooLong says whether a ledger's run should continue as new: past
// override events when one is set (tests), else past RunEvents when the
// run is short (recorded since changeLedgerShortRuns), or when the server
// suggests it.
func runTooLong(length int, suggested bool, override int, short bool) bool {
	if override > 0 {
		return length >= override
	}
	return suggested || (short && length >= RunEvents)
}
