package api

import "github.com/rackroll/rackroll/internal/keyset"

// The ledger's keysets (docs/keysets.md): Updates that create, replace and
// delete a keyset of the cluster, and the query that lists them. Their
// validators apply internal/keyset's rules, so bad input is refused before
// anything is written and leaves no trace in history.
const (
	UpdateKeysetCreate = "keyset-create"
	UpdateKeysetUpdate = "keyset-update"
	UpdateKeysetDelete = "keyset-delete"
	QueryKeysets       = "keysets" // the keysets, redacted (fingerprints, no keys)
)

// KeysetRequest creates or replaces a keyset (keyset-create,
// keyset-update). By is who asked, for the record.
type KeysetRequest struct {
	Keyset keyset.Spec `json:"keyset"`
	By     string      `json:"by,omitempty"`
}

// KeysetDeleteRequest deletes the keyset named Name (keyset-delete).
type KeysetDeleteRequest struct {
	Name string `json:"name"`
	By   string `json:"by,omitempty"`
}

// Redacted is the state as the ledger shows it: the keysets without their
// key material (keyset.Keyset.Redacted). The state and bmm queries answer
// with it, so no output and no other workflow's history carries a key.
func (st ClusterState) Redacted() ClusterState {
	if len(st.Keysets) == 0 {
		return st
	}
	out := st
	out.Keysets = make([]keyset.Keyset, len(st.Keysets))
	for i, k := range st.Keysets {
		out.Keysets[i] = k.Redacted()
	}
	return out
}
