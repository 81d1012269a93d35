package kernel

import (
	"cmp"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rackroll/rackroll/activities/bmc"
	"github.com/rackroll/rackroll/activities/kube"
	"github.com/rackroll/rackroll/internal/temporalerr"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// A reimage is judged in band (issue 13): BMCs do not reliably say when an
// install is done, so the BMC step only resets the machine into the
// installer, and the reimage is over when the node comes back — a new boot
// (another status.nodeInfo.bootID than before the reset), Ready, showing
// the target version. BMC signals are hints that end the wait early when
// the install failed. The installer is ejected only once the node is back.

// The BMC hints WatchReimage fails on (capped by the reimage's limit): a
// machine still Off this long after the reset is not installing, a BMC
// silent this long cannot tell us anything, and a machine back in POST
// this long after its installer booted has no OS to start (a sixth of what
// is left of the limit, when less: a site with short limits has short
// POSTs, as the lab does).
const (
	ReimageOffLimit     = 10 * time.Minute
	ReimageSilenceLimit = 15 * time.Minute
	ReimageStuckLimit   = 10 * time.Minute
)

// ReimageJob is one reimage of the steps' BMM and the wait for its node.
type ReimageJob struct {
	Verb, ImageURL, Version string
	// Limit bounds the whole reimage: the reset, the install and the node
	// coming back.
	Limit Limit
	Force bool // see steps.reimage
	// waitLimit bounds the separate wait of the histories recorded before
	// the change (it is read after the BMC step).
	WaitLimit func() time.Duration
	// provisioning records that the reset took effect and the node is
	// awaited (the ledger's Provisioning status).
	Provisioning func()
	// member is the etcd member the wipe takes down (an active KCP's, see
	// WipedMemberOf), or nil.
	Member *KCPMember
}

// reimageOutcome is the node as it came back, or as last seen; waiting
// says an error came after the reset (while waiting for the node).
type reimageOutcome struct {
	node    kube.NodeStatus
	Waiting bool
}

// ReimageUntilBack reimages and waits for the node: the one place a
// reimage is judged (server upgrade, BMM reimage/replace, remediation's
// reprovision and the failover's provisioning all come here).
func (s *Steps) ReimageUntilBack(j ReimageJob) (reimageOutcome, error) {
	if workflow.GetVersion(s.Ctx, ChangeReimageInBand, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		if err := s.reimage(j.Verb, j.ImageURL, j.Version, j.Limit, j.Force); err != nil {
			return reimageOutcome{}, err
		}
		j.Provisioning()
		ns, err := s.waitReady(j.Version, Limit{D: j.WaitLimit(), Key: j.Limit.Key})
		return reimageOutcome{node: ns, Waiting: true}, err
	}
	start := workflow.Now(s.Ctx)
	before, err := s.ReadNode()
	if err != nil {
		return reimageOutcome{}, fmt.Errorf("read node %s before the reset: %s", s.T.Node, temporalerr.Message(err))
	}
	// A KCP's member goes before its disk does, and the reimage is over
	// only once it has joined again.
	member := j.Member
	if member != nil && workflow.GetVersion(s.Ctx, changeMemberOutBeforeWipe, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		member = nil
	}
	if member != nil {
		if err := member.Remove(s.Ctx); err != nil {
			return reimageOutcome{}, err
		}
	}
	r, err := s.resetIntoInstaller(j, j.Limit.Left(s.Ctx, start))
	if err != nil {
		return reimageOutcome{}, err
	}
	if r.BootOverride == "Continuous" { // the eject below clears it too
		workflow.GetLogger(s.Ctx).Warn("the BMC made the one-time boot from the installer Continuous", "bmm", s.T.BMM)
	}
	j.Provisioning()
	previous := before.BootID
	if !r.Reimaged {
		// The BMC found the machine on the version and issued no reset
		// (an upgrade resumed after its reimage): its current boot counts.
		previous = ""
	}
	back, err := s.awaitNode(j, r, previous, j.Limit.Left(s.Ctx, start))
	if err != nil {
		return back, err
	}
	// Only now: ejecting earlier breaks an install in progress. A failed
	// eject fails the reimage — a machine whose boot order prefers the CD
	// would install again at its next reboot.
	if err := s.eject(j.ImageURL); err != nil {
		return back, fmt.Errorf("node %s is back on %s, but ejecting the installer failed: %s", s.T.Node, j.Version, temporalerr.Message(err))
	}
	if member != nil {
		// A step of its own, after the reimage's: bounded by etcdJoin.
		if err := member.Await(s.Ctx); err != nil {
			return back, fmt.Errorf("node %s is back on %s, but %s", s.T.Node, j.Version, err)
		}
	}
	return back, nil
}

// resetIntoInstaller is the BMC step, within what is left of the limit: it
// returns once the reset took effect.
func (s *Steps) resetIntoInstaller(j ReimageJob, left Limit) (bmc.ReimageResult, error) {
	var r bmc.ReimageResult
	err := s.run(left, fmt.Sprintf("%s %s to %s", j.Verb, s.T.BMM, j.Version), &r, ba.Reimage,
		bmc.ReimageInput{Endpoint: s.T.Endpoint, ImageURL: j.ImageURL, Version: j.Version, Force: j.Force})
	return r, overLimit(err, "the BMC of "+s.T.BMM+" did not start the install of "+j.Version, left)
}

// awaitNode waits, within left, for the node to come back on a boot other
// than previous at j.version, while WatchReimage looks for BMC hints that
// the install failed; whichever ends first decides, and the other is
// cancelled.
func (s *Steps) awaitNode(j ReimageJob, r bmc.ReimageResult, previous string, left Limit) (reimageOutcome, error) {
	waitCtx, stopWait := workflow.WithCancel(s.Ctx)
	defer stopWait()
	watchCtx, stopWatch := workflow.WithCancel(s.Ctx)
	defer stopWatch()
	wait := bound(waitCtx, left, func(ctx workflow.Context) workflow.Future {
		return workflow.ExecuteActivity(s.in(ctx).long(left, fmt.Sprintf("Wait for %s to come back on %s", s.T.Node, j.Version)),
			ka.WaitNodeReady, kube.WaitReadyInput{Node: s.T.Node, Version: j.Version, VersionFrom: s.T.VersionFrom, PreviousBootID: previous, Timeout: left.D})
	})
	// Not WaitForCancellation: a heartbeating activity learns of its
	// cancellation only with a heartbeat the SDK sends, throttled to 0.8 ×
	// HeartbeatTimeout — waiting for it held every reimage up to 48 s after
	// its node was back. The watch only reads; it may outlive the eject.
	watchOpts := s.in(watchCtx).long(left, "Watch the BMC of "+s.T.BMM+" during the install")
	watch := workflow.ExecuteActivity(watchOpts, ba.WatchReimage, bmc.WatchInput{Endpoint: s.T.Endpoint, Task: r.Task,
		OffLimit: min(ReimageOffLimit, left.D), SilenceLimit: min(ReimageSilenceLimit, left.D), StuckLimit: min(ReimageStuckLimit, left.D/6)})

	var node kube.NodeStatus
	var waitErr, watchErr error
	waitDone, watchDone := false, false
	sel := workflow.NewSelector(s.Ctx)
	sel.AddFuture(wait, func(f workflow.Future) { waitDone, waitErr = true, f.Get(s.Ctx, &node) })
	sel.AddFuture(watch, func(f workflow.Future) {
		watchDone, watchErr = true, f.Get(s.Ctx, nil)
		if watchErr != nil && !isHint(watchErr) {
			// The watch broke (not a verdict on the install): the node decides.
			workflow.GetLogger(s.Ctx).Warn("BMC watch ended without a verdict", "bmm", s.T.BMM, "error", watchErr)
			watchErr = nil
		}
	})
	for !waitDone && (!watchDone || watchErr == nil) {
		sel.Select(s.Ctx)
	}
	if waitDone && waitErr == nil {
		stopWatch()
		return reimageOutcome{node: node, Waiting: true}, nil
	}
	if s.Ctx.Err() != nil {
		// The workflow is cancelled: nothing to judge, nothing to eject.
		return reimageOutcome{node: node, Waiting: true}, cmp.Or(waitErr, watchErr, s.Ctx.Err())
	}
	var bmcState string
	if watchDone && watchErr != nil {
		// The BMC says the install failed: stop waiting for the node.
		stopWait()
		bmcState = temporalerr.Message(watchErr)
		node = s.lastSeen()
	} else {
		stopWatch()
		if !watchDone {
			watchErr = watch.Get(s.Ctx, nil)
		}
		node = lastStatus(waitErr, s.T.Node)
		if errors.Is(waitErr, errOverLimit) {
			node = s.lastSeen() // the wait was cut short: it left no status
		}
		bmcState = s.lastBMCState(r, watchErr)
	}
	// Best effort, and only now that the install is judged failed: an
	// installer left in would be booted again by the next reset or
	// power-on, and it keeps the BMC's virtual CD busy. The failure is what
	// to report, not the eject.
	_ = s.eject(j.ImageURL)
	return reimageOutcome{node: node, Waiting: true}, errors.New(notBack(s.T.BMM, j.Version, left, node, waitErr, bmcState))
}

// notBack is the failure of a reimage whose node did not come back: the
// node, the version, what the node showed last and what the BMC showed.
func notBack(bmm, version string, left Limit, node kube.NodeStatus, waitErr error, bmcState string) string {
	what := fmt.Sprintf("node %s did not come back on %s within %v", node.Node, version, left)
	shown := node.String()
	switch {
	case waitErr == nil || errors.As(waitErr, new(*temporal.CanceledError)):
		what = fmt.Sprintf("the install on %s failed before node %s came back on %s", bmm, node.Node, version)
	case errors.Is(waitErr, errOverLimit):
		// The limit says it all.
	case isNotReady(waitErr):
		// The wait's own message says what was missing (the new boot, the
		// version): keep it after its "node … not Ready within …: ".
		if _, after, ok := strings.Cut(temporalerr.Message(waitErr), ": "); ok {
			shown = after
		}
	default:
		what += ": " + temporalerr.Message(waitErr)
	}
	return fmt.Sprintf("%s; the node showed last: %s; the BMC showed last: %s", what, shown, bmcState)
}

// isHint: WatchReimage fails non-retryably only on a BMC hint that the
// install failed.
func isHint(err error) bool {
	var ae *temporal.ApplicationError
	return errors.As(err, &ae) && ae.NonRetryable()
}

func isNotReady(err error) bool {
	var ae *temporal.ApplicationError
	return errors.As(err, &ae) && ae.Type() == kube.ErrNodeNotReady
}

// lastStatus is the node status a failed wait carries in its details.
func lastStatus(err error, node string) kube.NodeStatus {
	var ae *temporal.ApplicationError
	last := kube.NodeStatus{Node: node}
	if errors.As(err, &ae) && ae.HasDetails() {
		_ = ae.Details(&last)
	}
	return last
}

// lastSeen reads the node once more, for the message (best effort).
func (s *Steps) lastSeen() kube.NodeStatus {
	ns, err := s.ReadNode()
	if err != nil {
		return kube.NodeStatus{Node: s.T.Node}
	}
	return ns
}

// lastBMCState is what the BMC showed last: the watch's own word when its
// cancellation carries one, else the power state read now, else what the
// reset step saw.
func (s *Steps) lastBMCState(r bmc.ReimageResult, watchErr error) string {
	var ce *temporal.CanceledError
	var state string
	if errors.As(watchErr, &ce) && ce.HasDetails() && ce.Details(&state) == nil && state != "" {
		return state
	}
	if watchErr != nil && !errors.As(watchErr, &ce) {
		return temporalerr.Message(watchErr)
	}
	if p, err := s.readPower(); err == nil {
		return fmt.Sprintf("power %s, health %s", p.PowerState, p.Health)
	}
	if r.LastState != "" {
		return r.LastState + " (when the reset took effect)"
	}
	return "unknown (the BMC did not answer)"
}

// eject takes the installer out of the BMM's virtual CD: a clean-up after
// the reimage's limit, bounded by the table's media limit, retries
// included.
func (s *Steps) eject(imageURL string) error {
	summary, in := "Eject the installer from "+s.T.BMM, bmc.EjectInput{Endpoint: s.T.Endpoint, ImageURL: imageURL}
	if !TableBounds(s.Ctx) {
		return workflow.ExecuteActivity(s.short(summary), ba.EjectMedia, in).Get(s.Ctx, nil)
	}
	l := MediaLimit(s.T.Limits)
	err := bound(s.Ctx, l, func(ctx workflow.Context) workflow.Future {
		return workflow.ExecuteActivity(s.in(ctx).cleanup(l, summary), ba.EjectMedia, in)
	}).Get(s.Ctx, nil)
	return overLimit(err, "the BMC of "+s.T.BMM+" did not eject the installer", l)
}

// in is a copy of the steps acting in ctx (a cancellable child).
func (s *Steps) in(ctx workflow.Context) *Steps {
	c := *s
	c.Ctx = ctx
	return &c
}
