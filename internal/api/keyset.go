package api

import (
	"time"

	"github.com/rackroll/rackroll/internal/keyset"
)

// The ledger's keysets (docs/keysets.md): Updates that create, replace and
// delete a keyset of the cluster, and the query that lists them. Their
// validators apply internal/keyset's rules, so bad input is refused before
// anything is written and leaves no trace in history.
const (
	UpdateKeysetCreate = "keyset-create"
	UpdateKeysetUpdate = "keyset-update"
	UpdateKeysetDelete = "keyset-delete"
	QueryKeysets       = "keysets" // the keysets, redacted (fingerprints, no keys), without outcomes
	// UpdateKeysetOutcomes records what applying (or, deleted, disabling)
	// a BMC keyset did on some BMMs, or applying the BMM keysets to some
	// nodes (KeysetWorkflow).
	UpdateKeysetOutcomes = "keyset-outcomes"
	// QueryNodeKeys answers keyset.NodeKeys at the time given: the users of
	// the BMM keysets active then, with their keys. Only the kube activity
	// that makes a keyset pod asks it, inside the worker: a query's answer
	// is in no history, and no workflow input carries a key.
	QueryNodeKeys = "node-keys"
)

// KeysetNodesID is the id of the run that applies a cluster's BMM
// keysets to its nodes: one per cluster, not per keyset, because one
// keyset pod carries the users of every BMM keyset at once, and two runs
// would put two pods on a node.
func KeysetNodesID(cluster string) string { return "keyset-nodes:" + cluster }

// KeysetID is the id of a keyset's workflow: one per keyset, so that a
// newer version's run replaces an older one's (docs/keysets.md).
func KeysetID(cluster, name string) string { return "keyset:" + cluster + ":" + name }

// KeysetInput names the keyset to apply. The workflow reads the keyset
// itself from the ledger: a live one is applied, a deleted (removed) one
// has its accounts disabled. Its input carries no member of it.
type KeysetInput struct {
	Cluster string `json:"cluster"`
	Name    string `json:"name"`
	// Nodes (Name empty): apply the BMM keysets, all of them, to every node.
	Nodes bool `json:"nodes,omitempty"`
	// AfterReinstall: servers were reinstalled (a runtime upgrade ended)
	// and their keys are to be established again; with no BMM keyset
	// active there is nothing to establish, and the run does nothing.
	AfterReinstall bool `json:"afterReinstall,omitempty"`
	// Resume: the run before applied this version of the keyset (or of
	// the set, for the nodes run) to the BMMs before From and continued as
	// new to keep its history short; this run goes on from From. Another
	// version starts again from the first BMM.
	Resume *KeysetResume `json:"resume,omitempty"`
}

// KeysetResume is where a keyset's pass continued as new: the next BMM,
// the version applied, and the counts so far (the last run's result is
// the whole pass's).
type KeysetResume struct {
	From    int       `json:"from"`
	Version time.Time `json:"version,omitzero"` // a BMC keyset's Updated
	Digest  string    `json:"digest,omitempty"` // the nodes run's set
	// Removing: the pass takes the keyset's access away (deleted or
	// expired); a pass that applies it is another.
	Removing bool         `json:"removing,omitempty"`
	Counts   KeysetResult `json:"counts"`
}

// SignalKeysetChanged tells a keyset's running workflow that the ledger
// has a newer version of its keyset (the starter signals it with start):
// the run ends its wave and continues as new on the ledger's version.
const SignalKeysetChanged = "keyset-changed"

// SignalKeysetRecheck (payload: a BMM's name) tells a BMC keyset's run
// that this BMM's BMC may have lost its accounts — a Replace gave it a new
// BMC, or a firmware update reset it — so that the run applies the keyset
// on that BMC again (ledger.Activities.RecheckBMCAccounts sends it).
const SignalKeysetRecheck = "keyset-recheck"

// KeysetResult counts the outcomes a KeysetWorkflow recorded; Note says
// why it did nothing, when it did nothing.
type KeysetResult struct {
	Applied  int    `json:"applied,omitempty"`
	Disabled int    `json:"disabled,omitempty"`
	Failed   int    `json:"failed,omitempty"`
	Note     string `json:"note,omitempty"`
}

// KeysetOutcomesRequest records outcomes of the keyset Name at Version
// (its Updated when the run read it): the ledger refuses them once the
// keyset has another version (keyset.Record).
//
// For the BMM keysets (Nodes set, Name empty) the outcomes are of the set
// the nodes were given, identified by its report (keyset.Wanted at At):
// the ledger refuses them unless its BMM keysets at At are still that set,
// and records each outcome for every BMM keyset in it.
type KeysetOutcomesRequest struct {
	Name     string             `json:"name"`
	Deleted  bool               `json:"deleted,omitempty"`
	Version  time.Time          `json:"version"`
	Outcomes []keyset.Outcome   `json:"outcomes"`
	Nodes    *keyset.NodeReport `json:"nodes,omitempty"`
	At       time.Time          `json:"at,omitzero"`
}

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
	if len(st.Keysets) == 0 && len(st.RemovedKeysets) == 0 {
		return st
	}
	out := st
	out.Keysets = make([]keyset.Keyset, len(st.Keysets))
	for i, k := range st.Keysets {
		out.Keysets[i] = k.Redacted()
	}
	if len(st.Keysets) == 0 {
		out.Keysets = nil
	}
	out.RemovedKeysets = make([]keyset.Keyset, len(st.RemovedKeysets))
	for i, k := range st.RemovedKeysets {
		out.RemovedKeysets[i] = k.Redacted()
	}
	if len(st.RemovedKeysets) == 0 {
		out.RemovedKeysets = nil
	}
	return out
}
