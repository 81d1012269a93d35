package keyset

import (
	"testing"
	"time"
)

func TestNextExpiryIsTheEarliestActiveOfTheKind(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	ks := func(name string, kind Kind, in time.Duration) Keyset {
		return Keyset{Spec: Spec{Name: name, Kind: kind, Expiration: now.Add(in)}}
	}
	list := []Keyset{ks("gone", KindBMM, -time.Hour), ks("late", KindBMM, 48*time.Hour), ks("soon", KindBMM, 2*time.Hour), ks("bmc", KindBMC, time.Hour)}
	if next, ok := NextExpiry(list, KindBMM, now); !ok || !next.Equal(now.Add(2*time.Hour)) {
		t.Errorf("NextExpiry = %s, %v; want soon's, in 2 h (the expired one and the BMC keyset not counted)", next, ok)
	}
	// At soon's expiration it has expired: the next is late's.
	if next, ok := NextExpiry(list, KindBMM, now.Add(2*time.Hour)); !ok || !next.Equal(now.Add(48*time.Hour)) {
		t.Errorf("NextExpiry at 2 h = %s, %v; want late's, in 48 h", next, ok)
	}
	if _, ok := NextExpiry(list, KindBMM, now.Add(48*time.Hour)); ok {
		t.Error("NextExpiry with every BMM keyset expired: want none")
	}
}

func TestRemovedFromKeepsFailures(t *testing.T) {
	got := RemovedFrom([]Outcome{{BMM: "a", State: Applied}, {BMM: "b", State: Failed, Reason: "node down"}})
	if got[0].State != Removed || got[1].State != Failed || got[1].Reason != "node down" {
		t.Errorf("RemovedFrom = %+v, want a removed and b failed with its reason", got)
	}
}
