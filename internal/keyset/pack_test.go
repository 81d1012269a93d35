package keyset

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestPackGroupsBMMsByOutcomeAndUnpacksThem(t *testing.T) {
	at := time.Date(2026, 11, 29, 10, 2, 0, 0, time.UTC)
	order := []string{"r1-c1", "r1-c2", "r1-c3", "r1-c4", "r2-c1", "r2-c2"}
	outs := []Outcome{
		{BMM: "r1-c1", State: Applied, Role: Administrator, At: at},
		{BMM: "r1-c2", State: Applied, Role: Administrator, At: at},
		{BMM: "r1-c3", State: Failed, Reason: "no room", At: at},
		{BMM: "r1-c4", State: Applied, Role: Administrator, At: at},
		{BMM: "r2-c2", State: Applied, Role: Administrator, At: at.Add(time.Minute)},
		{BMM: "gone", State: Applied, At: at},
	}
	groups := Pack(outs, order)
	want := []Group{
		{State: Applied, Role: Administrator, At: at, BMMs: "0-1,3"},
		{State: Failed, Reason: "no room", At: at, BMMs: "2"},
		{State: Applied, Role: Administrator, At: at.Add(time.Minute), BMMs: "5"},
	}
	if !reflect.DeepEqual(groups, want) {
		t.Fatalf("Pack = %+v\nwant %+v", groups, want)
	}
	back, err := Unpack(groups, order)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, outs[:5]) {
		t.Errorf("Unpack = %+v\nwant every outcome but the BMM that left, by BMM: %+v", back, outs[:5])
	}
	for _, bad := range []string{"6", "3-1", "x", "-1", "0-9"} {
		if _, err := Unpack([]Group{{State: Applied, BMMs: bad}}, order); err == nil || !strings.Contains(err.Error(), "below 6") {
			t.Errorf("Unpack of positions %q: %v, want an error naming the bound", bad, err)
		}
	}
}

// A pass spread over more minutes than the groups allow keeps, per
// outcome, the latest minute: the group count stays bounded.
func TestPackMergesTimesPastItsGroups(t *testing.T) {
	at := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	var order []string
	var outs []Outcome
	for i := range 200 {
		order = append(order, fmt.Sprintf("b%03d", i))
		outs = append(outs, Outcome{BMM: order[i], State: Applied, At: at.Add(time.Duration(i) * time.Minute)})
	}
	groups := Pack(outs, order)
	if len(groups) != 1 || groups[0].BMMs != "0-199" || !groups[0].At.Equal(at.Add(199*time.Minute)) {
		t.Errorf("Pack = %+v, want one group of every BMM at the latest minute", groups)
	}
}

// The worst a keyset's outcomes can be — every BMM of a 2,048-BMM site
// failed with its own long reason, each at its own time — stays bounded
// as Record keeps it: MaxReasons reasons, each cut, times to the second.
func TestRecordKeepsOutcomesBoundedAtAnySize(t *testing.T) {
	v := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	k := Keyset{Spec: Spec{Name: "b", Kind: KindBMC}, Updated: v}
	var order []string
	for i := range 2048 {
		b := fmt.Sprintf("site-h-rack%d-c%02d", i/32+1, i%32+1)
		order = append(order, b)
		reason := fmt.Sprintf("account ops: https://10.0.%d.%d/redfish/v1/AccountService/Accounts: %s", i/256, i%256, strings.Repeat("refused ", 60))
		k, _ = Record(k, v, []Outcome{{BMM: b, State: Failed, Reason: reason, At: v.Add(time.Duration(i) * 1500 * time.Millisecond)}})
	}
	reasons := map[string]bool{}
	for _, o := range k.Outcomes {
		reasons[o.Reason] = true
		if len(o.Reason) > maxReasonLen+len("…") || o.At.Nanosecond() != 0 {
			t.Fatalf("outcome %s kept as %d bytes of reason at %s: want at most %d, to the second", o.BMM, len(o.Reason), o.At, maxReasonLen)
		}
	}
	if len(reasons) != MaxReasons+1 {
		t.Errorf("%d different reasons kept, want %d and the one saying the others were not kept", len(reasons), MaxReasons)
	}
	b, err := json.Marshal(Pack(k.Outcomes, order))
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > 24<<10 {
		t.Errorf("the worst keyset's outcomes packed are %d bytes, want at most 24 KiB", len(b))
	}
	t.Logf("worst keyset at 2,048 BMMs: %d bytes packed", len(b))
}
