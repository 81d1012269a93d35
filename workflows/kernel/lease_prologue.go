package kernel

import (
	"fmt"
	"strings"

	"github.com/rackroll/rackroll/activities/ledger"
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/lease"
	"github.com/rackroll/rackroll/internal/model"
	"go.temporal.io/sdk/workflow"
)

// Opening is what a disruptive workflow asks of the ledger before it
// touches a machine: read the ledger, find the BMM, run the pre-checks that
// need no side effect, take the lease.
type Opening struct {
	Req lease.Request // the BMM, the holder, the operation and its flags
	// oneBMM reads only the BMM's slice of the ledger.
	OneBMM bool
	// check refuses before the lease is asked for.
	Check func(cs api.ClusterState, bm model.BMM) error
	// Probe, after Check, refuses with what the workflow reads of the
	// site itself (a BMC's firmware inventory before a Replace): reads
	// only, never a side effect, still before the lease. nil: none.
	Probe func(ctx workflow.Context, cs api.ClusterState, bm model.BMM) error
	// Removes: the KCP leaves the member set for good (a re-placement's
	// demotion or retire): the live gate judges the quorum of the members
	// that stay, not of the whole set with this one down — 2 → 1 is safe,
	// 2 with one down is not.
	Removes bool
}

// Held is a granted opening: the ledger as read and the lease to give back.
type Held struct {
	CS api.ClusterState
	// whole is the whole ledger where the opening read it (always for a
	// control-plane member's disruption); else cs.
	Whole   api.ClusterState
	BM      model.BMM
	Release func()
	// recheck asks the live gate again; a workflow whose first call that
	// takes the member down comes long after the lease (an upgrade step
	// cordons and drains first) calls it just before that call. nil-safe
	// through (held).gateAgain.
	Recheck func(workflow.Context) error
}

// GateAgain runs recheck when the opening was gated, else allows.
func (h Held) GateAgain(ctx workflow.Context) error {
	if h.Recheck == nil {
		return nil
	}
	return h.Recheck(ctx)
}

// openStage says where an opening stopped, so that each workflow reports it
// in its own words.
type openStage int

const (
	Opened       openStage = iota // the lease is held
	OpenRead                      // the ledger could not be read
	OpenPrecheck                  // the BMM is unknown or a check refused
	OpenLease                     // the ledger refused the lease
)

// Open runs the prologue every disruptive workflow shares. Once opened, the
// caller defers h.release(), which runs however the workflow ends,
// cancellation included.
func (l LedgerOf) Open(ctx workflow.Context, o Opening) (Held, openStage, error) {
	var cs api.ClusterState
	var err error
	if o.OneBMM {
		cs, err = l.ReadBMM(ctx, o.Req.BMM)
	} else {
		cs, err = l.Read(ctx)
	}
	if err != nil {
		return Held{}, OpenRead, err
	}
	bm, err := FindBMM(cs, o.Req.BMM)
	if err == nil && o.Check != nil {
		err = o.Check(cs, bm)
	}
	if err == nil && o.Probe != nil {
		err = o.Probe(ctx, cs, bm)
	}
	if err != nil {
		return Held{}, OpenPrecheck, err
	}
	// The live checks of the control plane, before the lease: a disruption
	// of a member (an active KCP) is decided on a fresh observation of the
	// site (LiveGate says where it is made and why), never on the ledger's
	// memory alone. The ledger sees when it was made (lease.Fresh).
	live := bm.HasRole(model.RoleKCP) && o.Req.Operation.Disruptive() &&
		workflow.GetVersion(ctx, changeCpLiveGate, workflow.DefaultVersion, 1) == 1
	whole := cs
	if live {
		if whole, err = l.wholeFor(ctx, cs, o.OneBMM); err != nil {
			return Held{}, OpenRead, err
		}
		seen, err := gateOpen(ctx, whole, o.Req, o.Removes)
		if err != nil {
			return Held{}, OpenLease, err
		}
		o.Req.ObservedAt = &seen
	}
	if err := l.acquireFresh(ctx, whole, o.Req, live, o.Removes); err != nil {
		return Held{}, OpenLease, err
	}
	release := func() { l.Release(ctx, o.Req.BMM, o.Req.Holder) }
	// Again once granted, just before the caller's first disruptive call:
	// the site may have changed while the lease was asked for.
	if live {
		if _, err := gateOpen(ctx, whole, o.Req, o.Removes); err != nil {
			release()
			return Held{}, OpenLease, err
		}
	}
	h := Held{CS: cs, Whole: whole, BM: bm, Release: release}
	if live {
		h.Recheck = func(ctx workflow.Context) error {
			if workflow.GetVersion(ctx, changeCpRecheckBeforeDisruption, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
				return nil
			}
			_, err := gateOpen(ctx, whole, o.Req, o.Removes)
			return err
		}
	}
	return h, Opened, nil
}

// staleAsks is how many times a lease refused only for a stale observation
// is observed and asked again: the observation goes stale when the worker
// is restarted between the two (the activity waits for a new worker), so a
// second ask normally passes; a third refusal means the site or the ledger
// is too slow to answer within lease.MaxObservationAge, which the operator
// has to hear of.
const staleAsks = 3

// acquireFresh asks for the lease; a refusal that only says the observation
// had gone stale observes again (the whole gate) and asks again.
func (l LedgerOf) acquireFresh(ctx workflow.Context, whole api.ClusterState, req lease.Request, live, removes bool) error {
	for ask := 1; ; ask++ {
		_, err := l.Acquire(ctx, req)
		if err == nil || !live || ask == staleAsks || !ledger.Stale(err) ||
			workflow.GetVersion(ctx, changeReobserve, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
			return err
		}
		seen, err := gateOpen(ctx, whole, req, removes)
		if err != nil {
			return err
		}
		req.ObservedAt = &seen
	}
}

// wholeFor returns a ledger with every BMM: the gate needs the other
// members' node names. A one-BMM read is completed by a whole read.
func (l LedgerOf) wholeFor(ctx workflow.Context, cs api.ClusterState, oneBMM bool) (api.ClusterState, error) {
	if !oneBMM {
		return cs, nil
	}
	return l.Read(ctx)
}

// FindBMM returns the ledger's record of name.
func FindBMM(cs api.ClusterState, name string) (model.BMM, error) {
	b, ok := cs.Cluster.BMM(name)
	if !ok {
		return model.BMM{}, fmt.Errorf("bmm %q is not in cluster %s: known BMMs are %s", name, cs.Cluster.Name, knownBMMs(cs.Cluster))
	}
	return *b, nil
}

func knownBMMs(c model.Cluster) string {
	var names []string
	for _, b := range c.BMMs {
		names = append(names, b.Name)
	}
	model.SortNatural(names)
	if len(names) > 12 {
		names = append(names[:12], fmt.Sprintf("… (%d in all)", len(c.BMMs)))
	}
	return strings.Join(names, ", ")
}
