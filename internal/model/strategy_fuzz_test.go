package model

import (
	"encoding/json"
	"reflect"
	"testing"
	"unicode/utf8"
)

// FuzzStrategyValidate: Validate never panics; a valid strategy stays valid
// with its defaults filled, WithDefaults is idempotent, the derived numbers
// stay in range, and the strategy survives a JSON round trip.
func FuzzStrategyValidate(f *testing.F) {
	f.Add("", "", 0, 0, 0, false, 8)
	f.Add("Rack", "PercentSuccess", 80, 0, 15, true, 8)
	f.Add("PauseAfterRack", "CountSuccess", 7, 3, 0, true, 8)
	f.Add("rack", "Percent", 120, -1, 61, true, 0)
	f.Add("Rack", "PercentSuccess", 101, 2, -1, true, 1)
	f.Add("Rack", "", 100, 1000, 60, true, 3)
	f.Fuzz(func(t *testing.T, st, tt string, value, maxUnavail, wait int, hasWait bool, rackSize int) {
		s := UpdateStrategy{StrategyType: st, ThresholdType: tt, ThresholdValue: value, MaxUnavailable: maxUnavail}
		if hasWait {
			s.WaitTimeMinutes = &wait
		}
		err := s.Validate()
		b, jerr := json.Marshal(s)
		if jerr != nil {
			t.Fatal(jerr)
		}
		var back UpdateStrategy
		// JSON carries only valid UTF-8: other bytes come back as U+FFFD.
		utf := utf8.ValidString(st) && utf8.ValidString(tt)
		if jerr := json.Unmarshal(b, &back); jerr != nil || (utf && !reflect.DeepEqual(back.WithDefaults(), s.WithDefaults())) {
			t.Fatalf("JSON round trip: %s -> %+v (%v)", b, back, jerr)
		}
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		d := s.WithDefaults()
		if err := d.Validate(); err != nil {
			t.Fatalf("valid %+v invalid with defaults: %v", s, err)
		}
		if !reflect.DeepEqual(d.WithDefaults(), d) {
			t.Fatalf("WithDefaults not idempotent: %+v", d)
		}
		if w := d.Wait(); w < 0 || w > MaxWaitTimeMinutes*60e9 {
			t.Fatalf("wait %v out of range", w)
		}
		n := rackSize % 1000
		if n < 1 {
			return
		}
		if p := d.Parallel(n); p < 1 || p > n {
			t.Fatalf("Parallel(%d) = %d", n, p)
		}
		req := d.Required(n)
		if d.ThresholdType == ThresholdPercentSuccess && (req < 0 || req > n) {
			t.Fatalf("Required(%d) = %d for %d %%", n, req, d.ThresholdValue)
		}
		if d.CheckRacks(map[string]int{"rack1": n}) == nil && req > n {
			t.Fatalf("CheckRacks accepts %d required of %d", req, n)
		}
	})
}
