package redfish

import (
	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/lab/faults"
)

// SetFault injects a fault. rate is the fraction of requests affected for
// the kinds faults.Rated lists; 0 (unset) or anything above 1 means every
// request. Other kinds ignore rate. Kinds the BMC does not play (the node's)
// are ignored, so the lab can hand every fault to every simulator.
func (b *BMC) SetFault(kind faults.Kind, rate float64) {
	if kind.Target() != faults.BMC {
		return
	}
	if rate <= 0 || rate > 1 {
		rate = 1
	}
	b.mu.Lock()
	b.faults[kind] = rate
	b.emitLocked(events.Fault, map[string]any{"kind": string(kind), "rate": rate, "active": true})
	b.mu.Unlock()
	b.flush()
}

// ClearFault removes a fault; clearing one that is not set does nothing.
func (b *BMC) ClearFault(kind faults.Kind) {
	b.mu.Lock()
	if _, ok := b.faults[kind]; !ok {
		b.mu.Unlock()
		return
	}
	delete(b.faults, kind)
	b.emitLocked(events.Fault, map[string]any{"kind": string(kind), "active": false})
	b.mu.Unlock()
	b.flush()
}

func (b *BMC) faultActiveLocked(kind faults.Kind) bool {
	_, ok := b.faults[kind]
	return ok
}

// faultHitLocked decides whether this request is one of the fraction a
// rate fault affects.
func (b *BMC) faultHitLocked(kind faults.Kind) bool {
	rate, ok := b.faults[kind]
	return ok && b.rng.Float64() < rate
}
