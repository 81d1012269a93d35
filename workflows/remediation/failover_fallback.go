package remediation

import (
	"errors"
	"fmt"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/placement"
	"github.com/rackroll/rackroll/internal/remediate"
	"github.com/rackroll/rackroll/workflows/kernel"
	"go.temporal.io/sdk/workflow"
)

// provisionFailed: the server to promote could not be provisioned.
type provisionFailed struct{ bmm, detail string }

func (e *provisionFailed) Error() string {
	return fmt.Sprintf("%s could not be provisioned (%s)", e.bmm, e.detail)
}

// keepsSpare: the placement table has a spare slot (two racks or more).
func (f *failover) keepsSpare() bool {
	_, spare := f.cs.Cluster.ControlPlaneSize()
	return spare > 0
}

// promoteOrFallBack promotes p.Spare; when its provisioning fails, the
// server is relabelled management (its ladder runs later, remediateFallen)
// and the next server remediate.NextKCP picks is promoted, until one
// serves or none is left. p.Spare ends as the server promoted; *newSpare
// is chosen again when the promoted one was to be it.
func (f *failover) promoteOrFallBack(ctx workflow.Context, p *remediate.FailoverPlan, newSpare *string) error {
	refused := map[string]string{}
	for cand := p.Spare; ; {
		err := f.promote(ctx, cand)
		var pf *provisionFailed
		if !errors.As(err, &pf) || ctx.Err() != nil { // a cut is not a failed provisioning
			if err == nil && cand != p.Spare {
				p.Spare = cand
				f.st.Plan = p
				f.spareAgain(ctx, p, newSpare)
			}
			return err
		}
		refused[cand] = "its provisioning failed (" + pf.detail + ")"
		f.fall(ctx, cand)
		for cand = ""; cand == ""; {
			next, refusals := remediate.NextKCP(f.cs.Cluster, f.in.Failed, refused)
			if next == "" {
				return f.short(ctx, fmt.Errorf("no server can take the place of KCP %s (%s)", f.in.Failed, remediate.Refusals(refusals)))
			}
			if next == *newSpare {
				cand = next // leased already
			} else if err := f.lease(ctx, next, f.holder); err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				refused[next] = "its lease was refused: " + err.Error()
			} else {
				cand = next
			}
		}
	}
}

// fall relabels a server whose provisioning failed as management: it stops
// being the spare (a failed attempt is a remediation case, not a mark),
// and this failover's view stops counting it healthy.
func (f *failover) fall(ctx workflow.Context, bmm string) {
	b, _ := f.cs.Cluster.BMM(bmm)
	b.ManagementGroup = ""
	group := placement.ChooseGroup(f.cs.Cluster.BMMs, b.Rack)
	f.setRole(ctx, bmm, model.RoleManagement, group)
	b.Roles, b.ManagementGroup = []model.Role{model.RoleManagement}, group
	b.DetailedStatus, b.ReadyState = model.BMMError, model.ReadyUnknown
	f.fallen = append(f.fallen, bmm)
}

// spareAgain picks the new spare again once a stand-in took the spare's
// place: the planned one may be the stand-in itself.
func (f *failover) spareAgain(ctx workflow.Context, p *remediate.FailoverPlan, newSpare *string) {
	if *newSpare != "" && *newSpare != p.Spare || !f.keepsSpare() {
		return
	}
	if b, ok := f.cs.Cluster.BMM(p.Spare); ok {
		b.Roles, b.ManagementGroup = []model.Role{model.RoleKCP}, ""
	}
	*newSpare, p.NewSpare, p.NoNewSpare = "", "", ""
	ns, err := placement.ChooseNewSpare(f.cs.Cluster.BMMs, f.in.Failed)
	if err == nil {
		err = f.lease(ctx, ns, f.holder)
	}
	if err != nil {
		p.NoNewSpare = err.Error() + "; the spare slot stays empty until one is repaired or replaced"
		return
	}
	*newSpare, p.NewSpare = ns, ns
}

// short leaves the site a KCP short when no server can take the failed
// one's place: the cluster goes Degraded with the reason, each candidate
// named with why it was refused, and the failed KCP stays marked.
func (f *failover) short(ctx workflow.Context, why error) error {
	msg := fmt.Sprintf("control plane short of a KCP: %v; %s stays marked Unhealthy", why, f.in.Failed)
	if err := kernel.LedgerOf(f.in.Cluster).SetStatus(ctx, api.ClusterStatusPatch{DetailedStatus: model.ClusterDegraded, DetailedStatusMessage: msg}); err != nil {
		workflow.GetLogger(ctx).Warn("could not set the cluster Degraded", "error", err)
	}
	return errors.New(msg)
}

// remediateFallen runs the management ladder from the top on each server
// whose provisioning for promotion failed: a reboot, a reprovision, then
// the mark. It runs once the control plane is whole again.
func (f *failover) remediateFallen(ctx workflow.Context) {
	for _, name := range f.fallen {
		if ctx.Err() != nil {
			return
		}
		b, _ := f.cs.Cluster.BMM(name)
		var outcome string
		l := newRemLadder(ctx, f.cs, *b, f.holder, &f.st.Steps, &f.cur, &outcome)
		l.marks = true
		outcome, recovered := l.climb(model.RoleManagement, nil)
		f.st.FallenOutcomes = append(f.st.FallenOutcomes, api.FallenOutcome{BMM: name, Outcome: outcome, Recovered: recovered})
	}
}
