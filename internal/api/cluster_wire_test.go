package api

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/keyset"
	"github.com/rackroll/rackroll/internal/model"
)

// siteAtItsLimits is a ledger of 2,048 BMMs with 32 keysets and 8 deleted
// ones, every BMM with an outcome under each (a few failed).
func siteAtItsLimits() ClusterState {
	var st ClusterState
	v := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	for r := 1; r <= 64; r++ {
		for c := 1; c <= 32; c++ {
			n := fmt.Sprintf("site-h-rack%d-c%02d", r, c)
			st.Cluster.BMMs = append(st.Cluster.BMMs, model.BMM{Name: n, Rack: fmt.Sprintf("rack%d", r), NodeName: n, RuntimeVersion: "4.1.2",
				DetailedStatus: model.BMMProvisioned, PowerState: model.PowerOn, CordonStatus: model.Uncordoned, ReadyState: model.ReadyTrue})
		}
	}
	for i := range keyset.MaxKeysets + keyset.MaxRemoved {
		k := keyset.Keyset{Spec: keyset.Spec{Name: fmt.Sprintf("ks%02d", i), Kind: keyset.KindBMC}, Updated: v}
		var outs []keyset.Outcome
		for j, b := range st.Cluster.BMMs {
			// A wave of 64 BMMs a minute: 32 different times.
			o := keyset.Outcome{BMM: b.Name, State: keyset.Applied, Role: keyset.Administrator, At: v.Add(time.Duration(j/64)*time.Minute + 7*time.Second)}
			if j%256 == 0 {
				o = keyset.Outcome{BMM: b.Name, State: keyset.Failed, Reason: "account a: no room for an account on " + b.Name, At: o.At}
			}
			outs = append(outs, o)
		}
		k, _ = keyset.Record(k, v, outs)
		if i < keyset.MaxKeysets {
			st.Keysets = append(st.Keysets, k)
		} else {
			st.RemovedKeysets = append(st.RemovedKeysets, k)
		}
	}
	return st
}

// The ledger's state at a site's limits travels in a fraction of
// Temporal's 2 MB payload limit, and reads back as it was.
func TestClusterStateTravelsPacked(t *testing.T) {
	st := siteAtItsLimits()
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	bare := st
	bare.Keysets, bare.RemovedKeysets = nil, nil
	base, _ := json.Marshal(bare)
	if extra := len(b) - len(base); extra > 256<<10 {
		t.Errorf("40 keysets' outcomes on 2,048 BMMs add %d bytes to the state, want at most 256 KiB", extra)
	} else {
		t.Logf("state %d bytes, of which 40 keysets × 2,048 outcomes %d", len(b), extra)
	}
	var back ClusterState
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, st) {
		t.Error("the state read back differs from the one written")
	}
	for _, k := range append(back.Keysets, back.RemovedKeysets...) {
		if len(k.Outcomes) != len(st.Cluster.BMMs) {
			t.Fatalf("keyset %s read back with %d outcomes, want %d", k.Name, len(k.Outcomes), len(st.Cluster.BMMs))
		}
	}
}

// A state written before packing (outcomes inline, as recorded histories
// carry it) reads as it was written; a packed one whose positions are past
// its BMMs is refused, naming the keyset.
func TestClusterStateReadsOutcomesInlineAndRefusesBadPositions(t *testing.T) {
	old := `{"cluster":{"name":"c","bmms":[{"name":"a"},{"name":"b"}]},"keysets":[{"name":"k","kind":"bmc","updated":"2026-11-29T10:00:00Z",` +
		`"outcomes":[{"bmm":"b","state":"applied","at":"2026-11-29T10:00:07Z"}]}]}`
	var st ClusterState
	if err := json.Unmarshal([]byte(old), &st); err != nil {
		t.Fatal(err)
	}
	if len(st.Keysets) != 1 || len(st.Keysets[0].Outcomes) != 1 || st.Keysets[0].Outcomes[0].BMM != "b" || st.Keysets[0].Outcomes[0].At.Second() != 7 {
		t.Errorf("inline outcomes read as %+v", st.Keysets)
	}
	bad := `{"cluster":{"name":"c","bmms":[{"name":"a"}]},"keysets":[{"name":"k","kind":"bmc"}],` +
		`"keysetOutcomes":{"k":[{"state":"applied","at":"2026-11-29T10:00:00Z","bmms":"0-1"}]}}`
	if err := json.Unmarshal([]byte(bad), &st); err == nil || !strings.Contains(err.Error(), "keyset k") {
		t.Errorf("positions past the BMMs: %v, want an error naming keyset k", err)
	}
}
