package redfish

import "time"

// Slow media (Profile.MediaDelay). A loaded or older BMC takes tens of
// seconds to answer a media action: iDRAC's InsertMedia returns only once
// it has reached the image share, and XCC's mounted image is not usable
// at once after the answer (docs/evidence.md, "Slow BMCs and session
// caps"). The lab holds each action for MediaDelay to twice that, one at
// a time per BMC (a BMC has one media service; a second action waits for
// the first), and carries it out when the hold ends — also when the client
// gave up meanwhile: a BMC does not undo what it started because its
// client's timeout passed. Reads of the slots are not held: during an
// action they show the state before it.

// holdMedia blocks for the action's time and returns the release to defer
// once the action was carried out. A BMC that closes ends the hold at once.
func (b *BMC) holdMedia() (release func()) {
	d := b.prof.MediaDelay
	if d <= 0 {
		return func() {}
	}
	b.mediaOp.Lock()
	b.mu.Lock()
	hold := d + time.Duration(b.rng.Int64N(int64(d)+1))
	b.mu.Unlock()
	due := make(chan struct{})
	t := b.clk.AfterFunc(hold, func() { close(due) })
	select {
	case <-due:
	case <-b.done:
		t.Stop()
	}
	return b.mediaOp.Unlock
}
