package api

import (
	"encoding/json"
	"fmt"

	"github.com/rackroll/rackroll/internal/keyset"
)

// The ledger's state as it travels — carried across continue-as-new,
// answered to queries, read by other workflows — has its keysets'
// outcomes packed over its own BMM list (keyset.Pack): one group per
// outcome instead of one outcome per BMM per keyset, so the state of a
// site at its limits stays far below Temporal's payload limit. In
// memory they are one per BMM, as before; a state written before packing
// (outcomes inline) reads as it was written.

type plainState ClusterState

type wireState struct {
	plainState
	KeysetOutcomes  map[string][]keyset.Group `json:"keysetOutcomes,omitempty"`
	RemovedOutcomes map[string][]keyset.Group `json:"removedKeysetOutcomes,omitempty"`
}

// MarshalJSON writes st with its keysets' outcomes packed.
func (st ClusterState) MarshalJSON() ([]byte, error) {
	order := bmmNames(st)
	w := wireState{plainState: plainState(st)}
	w.Keysets, w.KeysetOutcomes = packAll(st.Keysets, order)
	w.RemovedKeysets, w.RemovedOutcomes = packAll(st.RemovedKeysets, order)
	return json.Marshal(w)
}

// UnmarshalJSON reads st packed or not.
func (st *ClusterState) UnmarshalJSON(b []byte) error {
	var w wireState
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	order := bmmNames(ClusterState(w.plainState))
	if err := unpackAll(w.Keysets, w.KeysetOutcomes, order); err != nil {
		return err
	}
	if err := unpackAll(w.RemovedKeysets, w.RemovedOutcomes, order); err != nil {
		return err
	}
	*st = ClusterState(w.plainState)
	return nil
}

func bmmNames(st ClusterState) []string {
	names := make([]string, len(st.Cluster.BMMs))
	for i, b := range st.Cluster.BMMs {
		names[i] = b.Name
	}
	return names
}

// packAll is list without outcomes, and each keyset's outcomes packed.
func packAll(list []keyset.Keyset, order []string) ([]keyset.Keyset, map[string][]keyset.Group) {
	if list == nil {
		return nil, nil
	}
	out := make([]keyset.Keyset, len(list))
	var packed map[string][]keyset.Group
	for i, k := range list {
		if len(k.Outcomes) > 0 {
			if packed == nil {
				packed = map[string][]keyset.Group{}
			}
			packed[k.Name] = keyset.Pack(k.Outcomes, order)
		}
		k.Outcomes = nil
		out[i] = k
	}
	return out, packed
}

// unpackAll gives each keyset of list its packed outcomes.
func unpackAll(list []keyset.Keyset, packed map[string][]keyset.Group, order []string) error {
	for i, k := range list {
		g, ok := packed[k.Name]
		if !ok {
			continue
		}
		outs, err := keyset.Unpack(g, order)
		if err != nil {
			return fmt.Errorf("keyset %s: %w", k.Name, err)
		}
		list[i].Outcomes = outs
	}
	return nil
}
