package cluster

import (
	"fmt"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/keyset"
	"github.com/rackroll/rackroll/internal/model"
	"go.temporal.io/sdk/workflow"
)

// The BMM keysets on the nodes (docs/keysets-nodes.md#the-nodes-run):
// one keyset pod carries the users of every BMM keyset at once, so the
// run that applies them records one outcome per node for the whole set,
// and the ledger keeps it under each keyset of the set. Like the other
// keyset handlers, state only, no command.

// nodeKeysQuery answers the users of the BMM keysets active at at, with
// their keys: the keyset pod's content. A query's answer is in no
// history; only the applying activity asks it, inside the worker.
func (l *clusterLedger) nodeKeysQuery(ctx workflow.Context) error {
	return workflow.SetQueryHandler(ctx, api.QueryNodeKeys, func(at time.Time) (keyset.NodeKeys, error) {
		if at.IsZero() {
			return keyset.NodeKeys{}, fmt.Errorf("at: required: the time the run read the keysets at")
		}
		return keyset.ForNodes(l.st.Keysets, at), nil
	})
}

// checkNodeOutcomes refuses a request for the BMM keysets that is not
// one: a name, a version or a deletion with it, an outcome that names no
// BMM or has a state other than applied, failed or pending (a node being
// reinstalled, with its reason); and outcomes of a set
// the ledger no longer has at r.At (a BMM keyset created, updated or
// deleted since the run read them): superseded.
func (l *clusterLedger) checkNodeOutcomes(r api.KeysetOutcomesRequest) error {
	var e model.ValidationError
	if r.Name != "" || r.Deleted || !r.Version.IsZero() {
		e.Add("name", r.Name, "outcomes of the BMM keysets are of the whole set: no name, version or deletion")
	}
	if r.At.IsZero() {
		e.Add("at", "", "required: the time the run read the keysets at")
	}
	for i, o := range r.Outcomes {
		if o.BMM == "" {
			e.Add(fmt.Sprintf("outcomes[%d].bmm", i), "", "required: the BMM whose node this is")
		}
		switch {
		case o.State == keyset.Pending && o.Reason == "":
			e.Add(fmt.Sprintf("outcomes[%d].reason", i), "", "required with pending: why the node was not given the set (a reinstall)")
		case o.State != keyset.Applied && o.State != keyset.Failed && o.State != keyset.Pending:
			e.Addf(fmt.Sprintf("outcomes[%d].state", i), string(o.State), "a node's outcome is %s, %s or %s", keyset.Applied, keyset.Failed, keyset.Pending)
		}
	}
	if err := e.Err(); err != nil {
		return err
	}
	if want := keyset.Wanted(l.st.Keysets, r.At); want != *r.Nodes {
		return fmt.Errorf("nodes: %d users (digest %s) — the BMM keysets of cluster %s are %d users (digest %s) now: superseded",
			r.Nodes.Users, r.Nodes.Digest, l.st.Cluster.Name, want.Users, want.Digest)
	}
	return nil
}

// recordNodeOutcomes keeps each node's outcome under every BMM keyset of
// the set it was given (those active at r.At), and under each BMM keyset
// expired at r.At as its removal: a node given the set without it no
// longer has its users (keyset.RemovedFrom).
func (l *clusterLedger) recordNodeOutcomes(ctx workflow.Context, r api.KeysetOutcomesRequest) error {
	if err := l.checkNodeOutcomes(r); err != nil {
		return err
	}
	outs := l.known(r.Outcomes)
	removed := keyset.RemovedFrom(outs)
	for i, k := range l.st.Keysets {
		switch {
		case k.Kind != keyset.KindBMM:
		case k.Expired(r.At):
			l.st.Keysets[i], _ = keyset.Record(k, k.Updated, removed)
		default:
			l.st.Keysets[i], _ = keyset.Record(k, k.Updated, outs)
		}
	}
	l.touch(ctx)
	return nil
}

// known drops the outcomes of BMMs that left the inventory meanwhile.
func (l *clusterLedger) known(outs []keyset.Outcome) []keyset.Outcome {
	var keep []keyset.Outcome
	for _, o := range outs {
		if _, ok := l.st.Cluster.BMM(o.BMM); ok {
			keep = append(keep, o)
		}
	}
	return keep
}
