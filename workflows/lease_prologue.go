package workflows

import (
	"fmt"
	"strings"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/lease"
	"github.com/rackroll/rackroll/internal/model"
	"go.temporal.io/sdk/workflow"
)

// opening is what a disruptive workflow asks of the ledger before it
// touches a machine: read the ledger, find the BMM, run the pre-checks that
// need no side effect, take the lease.
type opening struct {
	req lease.Request // the BMM, the holder, the operation and its flags
	// oneBMM reads only the BMM's slice of the ledger.
	oneBMM bool
	// check refuses before the lease is asked for.
	check func(cs api.ClusterState, bm model.BMM) error
}

// held is a granted opening: the ledger as read and the lease to give back.
type held struct {
	cs api.ClusterState
	// whole is the whole ledger where the opening read it (always for a
	// control-plane member's disruption); else cs.
	whole   api.ClusterState
	bm      model.BMM
	release func()
	// recheck asks the live gate again; a workflow whose first call that
	// takes the member down comes long after the lease (an upgrade step
	// cordons and drains first) calls it just before that call. nil-safe
	// through (held).gateAgain.
	recheck func(workflow.Context) error
}

// gateAgain runs recheck when the opening was gated, else allows.
func (h held) gateAgain(ctx workflow.Context) error {
	if h.recheck == nil {
		return nil
	}
	return h.recheck(ctx)
}

// openStage says where an opening stopped, so that each workflow reports it
// in its own words.
type openStage int

const (
	opened       openStage = iota // the lease is held
	openRead                      // the ledger could not be read
	openPrecheck                  // the BMM is unknown or a check refused
	openLease                     // the ledger refused the lease
)

// open runs the prologue every disruptive workflow shares. Once opened, the
// caller defers h.release(), which runs however the workflow ends,
// cancellation included.
func (l ledgerOf) open(ctx workflow.Context, o opening) (held, openStage, error) {
	var cs api.ClusterState
	var err error
	if o.oneBMM {
		cs, err = l.readBMM(ctx, o.req.BMM)
	} else {
		cs, err = l.read(ctx)
	}
	if err != nil {
		return held{}, openRead, err
	}
	bm, err := findBMM(cs, o.req.BMM)
	if err == nil && o.check != nil {
		err = o.check(cs, bm)
	}
	if err != nil {
		return held{}, openPrecheck, err
	}
	// The live checks of the control plane, before the lease: a disruption
	// of a member (an active KCP) is decided on a fresh observation of the
	// site (liveGate says where it is made and why), never on the ledger's
	// memory alone. The ledger sees when it was made (lease.Fresh).
	live := bm.HasRole(model.RoleKCP) && o.req.Operation.Disruptive() &&
		workflow.GetVersion(ctx, "cp-live-gate", workflow.DefaultVersion, 1) == 1
	whole := cs
	if live {
		if whole, err = l.wholeFor(ctx, cs, o.oneBMM); err != nil {
			return held{}, openRead, err
		}
		seen, err := gateOpen(ctx, whole, o.req)
		if err != nil {
			return held{}, openLease, err
		}
		o.req.ObservedAt = &seen
	}
	if _, err := l.acquire(ctx, o.req); err != nil {
		return held{}, openLease, err
	}
	release := func() { l.release(ctx, o.req.BMM, o.req.Holder) }
	// Again once granted, just before the caller's first disruptive call:
	// the site may have changed while the lease was asked for.
	if live {
		if _, err := gateOpen(ctx, whole, o.req); err != nil {
			release()
			return held{}, openLease, err
		}
	}
	h := held{cs: cs, whole: whole, bm: bm, release: release}
	if live {
		h.recheck = func(ctx workflow.Context) error {
			if workflow.GetVersion(ctx, "cp-recheck-before-disruption", workflow.DefaultVersion, 1) == workflow.DefaultVersion {
				return nil
			}
			_, err := gateOpen(ctx, whole, o.req)
			return err
		}
	}
	return h, opened, nil
}

// wholeFor returns a ledger with every BMM: the gate needs the other
// members' node names. A one-BMM read is completed by a whole read.
func (l ledgerOf) wholeFor(ctx workflow.Context, cs api.ClusterState, oneBMM bool) (api.ClusterState, error) {
	if !oneBMM {
		return cs, nil
	}
	return l.read(ctx)
}

// findBMM returns the ledger's record of name.
func findBMM(cs api.ClusterState, name string) (model.BMM, error) {
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
