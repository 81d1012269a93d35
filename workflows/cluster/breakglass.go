package cluster

import (
	"fmt"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/breakglass"
	"github.com/rackroll/rackroll/internal/lease"
	"github.com/rackroll/rackroll/workflows/kernel"
	"go.temporal.io/sdk/workflow"
)

// The ledger's break-glass Updates (internal/breakglass decides). Each
// accepted act is kept in ClusterState.BreakGlass (shown by `starter
// cluster history`) and, with its reason and operator, in this workflow's
// Temporal history as the Update's input. Bad input is refused by the
// validators, before anything changes and without a trace.
func (l *clusterLedger) breakGlassHandlers(ctx workflow.Context) error {
	if err := workflow.SetUpdateHandlerWithOptions(ctx, api.UpdateResume, l.resume,
		workflow.UpdateHandlerOptions{Validator: func(ctx workflow.Context, r api.ResumeRequest) error {
			return breakglass.CheckResume(l.st.Cluster, r)
		}}); err != nil {
		return err
	}
	return workflow.SetUpdateHandlerWithOptions(ctx, api.UpdateBreakGlassFree, l.freeLease,
		workflow.UpdateHandlerOptions{Validator: func(ctx workflow.Context, r api.LeaseReleaseRequest) error {
			_, err := breakglass.CheckRelease(l.st, r)
			return err
		}})
}

// resume returns a Degraded or Failed cluster to Running and says what was
// wrong. It changes nothing else: Unhealthy marks, leases and an upgrade
// target stay as they were.
func (l *clusterLedger) resume(ctx workflow.Context, r api.ResumeRequest) (api.ResumeResult, error) {
	res, act := breakglass.Resume(l.st, r, workflow.Now(ctx))
	l.st.Cluster.DetailedStatus, l.st.Cluster.DetailedStatusMessage = res.Status, res.Message
	l.st.BreakGlass = breakglass.Append(l.st.BreakGlass, act)
	l.touch(ctx)
	return res, nil
}

// freeLease releases the lease on a BMM whose holder has ended.
//
// How the ledger learns that the holder ended: it asks Temporal itself,
// with the activity its lease sweep already uses (HolderStates describes
// the holder's workflow), rather than trusting a status the starter would
// send: the ledger is the single writer of leases, so it decides on its
// own observation, and the check and the release happen in one handler.
// The activity runs only when an operator asks, so the ledger's history
// grows by one activity per release.
func (l *clusterLedger) freeLease(ctx workflow.Context, r api.LeaseReleaseRequest) (lease.Lease, error) {
	held, err := breakglass.CheckRelease(l.st, r)
	if err != nil {
		return lease.Lease{}, err
	}
	running, err := kernel.LedgerOf(l.st.Cluster.Name).Running(ctx, []string{held.Holder})
	if err != nil {
		return lease.Lease{}, fmt.Errorf("could not tell whether %s, holder of the lease on %s, still runs: %w", held.Holder, held.BMM, err)
	}
	act, err := breakglass.Released(held, running[held.Holder], r, workflow.Now(ctx))
	if err != nil {
		return lease.Lease{}, err
	}
	// The sweep may have dropped it while we asked: nothing left to free.
	if now, ok := lease.HeldOn(l.st.Leases, held.BMM); !ok || now.Holder != held.Holder {
		return held, nil
	}
	l.st.Leases = lease.Release(l.st.Leases, held.BMM, held.Holder)
	l.st.BreakGlass = breakglass.Append(l.st.BreakGlass, act)
	l.touch(ctx)
	return held, nil
}

// recordForced keeps a forced grant (lease.Request.Force) in the log; a
// holder confirming a lease it already held is not a new act.
func (l *clusterLedger) recordForced(ctx workflow.Context, r lease.Request, had bool) {
	if !r.Force || had {
		return
	}
	l.st.BreakGlass = breakglass.Append(l.st.BreakGlass, breakglass.Forced(l.st, r, workflow.Now(ctx)))
}
