package keyset

import (
	"fmt"
	"testing"
	"time"
)

func TestRecordKeepsOneOutcomePerBMMOfTheCurrentVersion(t *testing.T) {
	v := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	k := Keyset{Spec: Spec{Name: "b", Kind: KindBMC}, Updated: v}
	k, ok := Record(k, v, []Outcome{{BMM: "r1-c2", State: Failed, Reason: "full"}, {BMM: "r1-c1", State: Applied}})
	if !ok {
		t.Fatal("outcomes of the current version refused")
	}
	k, _ = Record(k, v, []Outcome{{BMM: "r1-c2", State: Applied, Role: Operator}})
	if len(k.Outcomes) != 2 || k.Outcomes[0].BMM != "r1-c1" || k.Outcomes[1].State != Applied || k.Outcomes[1].Reason != "" {
		t.Errorf("outcomes %+v, want r1-c1 and r1-c2 applied, sorted, the later outcome replacing the earlier", k.Outcomes)
	}
	if _, ok := Record(k, v.Add(-time.Second), []Outcome{{BMM: "r1-c1", State: Failed}}); ok {
		t.Error("outcomes of another version accepted")
	}
	got := OutcomesFor(k, []string{"r1-c3", "r1-c1"})
	if got[0].State != Pending || got[0].BMM != "r1-c3" || got[1].State != Applied {
		t.Errorf("OutcomesFor %+v, want r1-c3 pending and r1-c1 applied", got)
	}
}

func TestRetireKeepsDeletedBMCKeysets(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	list := []Keyset{
		{Spec: Spec{Name: "bmc", Kind: KindBMC}, Outcomes: []Outcome{{BMM: "r1-c1", State: Applied}}},
		{Spec: Spec{Name: "os", Kind: KindBMM}},
	}
	list, removed := Retire(list, nil, "os", "bob", now)
	if len(list) != 1 || len(removed) != 0 {
		t.Fatalf("a BMM keyset deleted: list %d, removed %d; want 1 and 0 (nothing to disable on a BMC)", len(list), len(removed))
	}
	list, removed = Retire(list, removed, "bmc", "bob", now)
	if len(list) != 0 || len(removed) != 1 || !removed[0].Updated.Equal(now) || removed[0].By != "bob" || removed[0].Outcomes != nil {
		t.Fatalf("a BMC keyset deleted: list %+v, removed %+v; want it removed at now by bob, every BMC pending", list, removed)
	}
	for i := range MaxRemoved + 2 {
		_, removed = Retire([]Keyset{{Spec: Spec{Name: fmt.Sprint("k", i), Kind: KindBMC}}}, removed, fmt.Sprint("k", i), "", now)
	}
	if len(removed) != MaxRemoved || removed[0].Name != "k2" {
		t.Errorf("removed %d keysets starting with %s, want the newest %d", len(removed), removed[0].Name, MaxRemoved)
	}
}

// Two writes at one instant (one workflow task) are two versions: a run
// of the first cannot record outcomes against the second.
func TestVersionsIncreaseWithinOneInstant(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	s := Spec{Name: "b", Kind: KindBMC}
	list := Put(nil, s, "", now)
	list = Put(list, s, "", now)
	if !list[0].Updated.After(now) {
		t.Fatalf("an update at the same instant kept version %s", list[0].Updated)
	}
	_, removed := Retire(list, nil, "b", "", now)
	if !removed[0].Updated.After(list[0].Updated) {
		t.Errorf("a delete at the same instant kept version %s", removed[0].Updated)
	}
}
