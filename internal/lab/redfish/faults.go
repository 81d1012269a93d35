package redfish

import "github.com/rackroll/rackroll/internal/lab/events"

// Fault kinds the BMC simulates (DESIGN.md, "Lab fault kinds").
const (
	FaultReimageFails   = "reimage-fails"   // reimage ends in reimage-failed, no bootable OS
	FaultReimageHangs   = "reimage-hangs"   // reimage never finishes
	FaultBMC5xx         = "bmc-5xx"         // rate of requests answered 500/503
	FaultBMCTimeout     = "bmc-timeout"     // rate of requests that hang (≤ 2 min, or until the client gives up)
	FaultBMCUnreachable = "bmc-unreachable" // connections dropped without an answer
	FaultPowerOnFails   = "power-on-fails"  // power-on accepted (202), machine stays Off, task Exception
	FaultStaleETag      = "stale-etag"      // rate of PATCHes answered 412 even with the right If-Match
)

var bmcFaults = map[string]bool{
	FaultReimageFails: true, FaultReimageHangs: true, FaultBMC5xx: true, FaultBMCTimeout: true,
	FaultBMCUnreachable: true, FaultPowerOnFails: true, FaultStaleETag: true,
}

// SetFault injects a fault. rate is the fraction of requests affected for
// bmc-5xx, bmc-timeout and stale-etag; 0 (unset) or anything above 1 means
// every request. Other kinds ignore rate. Kinds that are not the BMC's (for
// example node-not-ready) are ignored, so the lab can hand every fault to
// every simulator.
func (b *BMC) SetFault(kind string, rate float64) {
	if !bmcFaults[kind] {
		return
	}
	if rate <= 0 || rate > 1 {
		rate = 1
	}
	b.mu.Lock()
	b.faults[kind] = rate
	b.emitLocked(events.Fault, map[string]any{"kind": kind, "rate": rate, "active": true})
	b.mu.Unlock()
	b.flush()
}

// ClearFault removes a fault; clearing one that is not set does nothing.
func (b *BMC) ClearFault(kind string) {
	b.mu.Lock()
	if _, ok := b.faults[kind]; !ok {
		b.mu.Unlock()
		return
	}
	delete(b.faults, kind)
	b.emitLocked(events.Fault, map[string]any{"kind": kind, "active": false})
	b.mu.Unlock()
	b.flush()
}

func (b *BMC) faultActiveLocked(kind string) bool {
	_, ok := b.faults[kind]
	return ok
}

// faultHitLocked decides whether this request is one of the fraction a
// rate fault affects.
func (b *BMC) faultHitLocked(kind string) bool {
	rate, ok := b.faults[kind]
	return ok && b.rng.Float64() < rate
}
