package api

import (
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/keyset"
	"github.com/rackroll/rackroll/internal/lease"
	"github.com/rackroll/rackroll/internal/model"
)

// A page is its BMMs, their leases and the keysets without outcomes;
// past the end it is empty, and the total is the whole list's.
func TestPage(t *testing.T) {
	var st ClusterState
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		st.Cluster.BMMs = append(st.Cluster.BMMs, model.BMM{Name: n})
	}
	st.Leases = []lease.Lease{{BMM: "b", Holder: "x"}, {BMM: "e", Holder: "y"}}
	k := keyset.Keyset{Spec: keyset.Spec{Name: "oncall"}, Outcomes: []keyset.Outcome{{BMM: "a", State: keyset.Applied, At: time.Now()}}}
	st.Keysets, st.RemovedKeysets = []keyset.Keyset{k}, []keyset.Keyset{k}

	p, total := st.Page(1, 2)
	if total != 5 || len(p.Cluster.BMMs) != 2 || p.Cluster.BMMs[0].Name != "b" || p.Cluster.BMMs[1].Name != "c" {
		t.Fatalf("page 1+2: %d of %d %v", len(p.Cluster.BMMs), total, p.Cluster.BMMs)
	}
	if len(p.Leases) != 1 || p.Leases[0].BMM != "b" {
		t.Fatalf("leases of the page: %v", p.Leases)
	}
	if len(p.Keysets) != 1 || p.Keysets[0].Outcomes != nil || p.RemovedKeysets[0].Outcomes != nil {
		t.Fatalf("keysets without outcomes: %+v %+v", p.Keysets, p.RemovedKeysets)
	}
	if len(st.Keysets[0].Outcomes) != 1 || len(st.Leases) != 2 {
		t.Fatal("the state itself is left as it was")
	}
	if p, total := st.Page(4, 10); total != 5 || len(p.Cluster.BMMs) != 1 {
		t.Fatalf("the last page: %d", len(p.Cluster.BMMs))
	}
	if p, _ := st.Page(9, 10); len(p.Cluster.BMMs) != 0 {
		t.Fatalf("past the end: %d", len(p.Cluster.BMMs))
	}
}
