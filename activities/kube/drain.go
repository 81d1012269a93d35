package kube

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/rackroll/rackroll/internal/model"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/kubectl/pkg/drain"

	"go.temporal.io/sdk/activity"
)

// DrainInput names the node to drain.
type DrainInput struct {
	Node string
	// Timeout bounds the drain (default DefaultDrainTimeout, 20 minutes).
	// It counts from the first attempt: a retried activity gets only
	// what is left.
	Timeout time.Duration
	// GracePeriodSeconds overrides each pod's terminationGracePeriodSeconds
	// when positive; 0 keeps the pods' own.
	GracePeriodSeconds int
}

// DrainResult says how the drain ended. A drain that runs out of time is
// not an error: the upgrade proceeds (docs/behaviour.md#time-limits).
type DrainResult struct {
	Completed bool // no pod left to evict or waiting to terminate
	Remaining int  // pods still on the node that the drain would evict
	TimedOut  bool
	Evicted   int // pods this attempt saw evicted and gone
}

// drainProgress is the heartbeat detail, read back on retry.
type drainProgress struct {
	Started   time.Time
	Evicted   int
	Remaining int
}

// Drain cordons node (as kubectl drain does) and evicts its pods through
// the eviction API, so PodDisruptionBudgets are honoured. DaemonSet pods
// are left, emptyDir data is discarded, pods without a controller are
// evicted too, and tenant VM pods are skipped: ShutdownVMs handles them.
func (a *Activities) Drain(ctx context.Context, in DrainInput) (DrainResult, error) {
	if in.Node == "" {
		return DrainResult{}, invalidInput("node name is empty")
	}
	if in.Timeout < 0 || in.GracePeriodSeconds < 0 {
		return DrainResult{}, invalidInput("drain of %s: timeout %v and gracePeriodSeconds %d must not be negative", in.Node, in.Timeout, in.GracePeriodSeconds)
	}
	timeout := in.Timeout
	if timeout == 0 {
		timeout = DefaultDrainTimeout
	}
	progress := drainProgress{Started: time.Now()}
	if activity.IsActivity(ctx) && activity.HasHeartbeatDetails(ctx) {
		var prev drainProgress
		if activity.GetHeartbeatDetails(ctx, &prev) == nil && !prev.Started.IsZero() {
			progress.Started = prev.Started
		}
	}
	if err := a.Cordon(ctx, in.Node); err != nil {
		return DrainResult{}, err
	}
	cs, err := a.client(ctx)
	if err != nil {
		return DrainResult{}, err
	}

	left := withinDeadline(ctx, time.Until(progress.Started.Add(timeout)))
	drainCtx, cancel := context.WithTimeout(ctx, max(left, 0))
	defer cancel()
	var evicted atomic.Int32
	drainErr := context.DeadlineExceeded // the first attempt used the whole budget
	if left > 0 {
		drainErr = a.evictAllButLastWorker(ctx, drainCtx, cs, in, &evicted, &progress)
	}
	if ctx.Err() != nil {
		return DrainResult{}, ctx.Err()
	}
	// Out of time or not, the last Ready worker never goes with the node:
	// the drain fails rather than proceed to a reimage that would take it
	// (whether this drain kept it or a PodDisruptionBudget did).
	if v, err := a.judgeWorkers(ctx, cs, in.Node); err != nil {
		return DrainResult{}, err
	} else if len(v.Keep) > 0 {
		return DrainResult{}, lastWorker(in.Node, v)
	}
	remaining, err := a.remainingPods(ctx, cs, in)
	if err != nil {
		return DrainResult{}, err
	}
	res := DrainResult{Remaining: remaining, Evicted: int(evicted.Load())}
	switch {
	case drainErr == nil && remaining == 0:
		res.Completed = true
	case drainCtx.Err() != nil || errors.Is(drainErr, context.DeadlineExceeded):
		// Out of time: report and let the upgrade proceed.
		res.TimedOut = true
	case drainErr != nil:
		return res, fmt.Errorf("drain node %s: %w", in.Node, drainErr)
	default:
		// The helper finished but pods appeared meanwhile (a controller
		// ignoring the cordon): report them; the next attempt evicts them.
		return res, fmt.Errorf("drain node %s: %d pods still to evict after the drain finished", in.Node, remaining)
	}
	progress.Remaining = remaining
	heartbeat(ctx, progress)
	return res, nil
}

// evictAllButLastWorker runs kubectl's drain until drainCtx ends, leaving
// the last Ready rackroll worker (internal/workerguard): while one is kept
// it looks again every poll, and drains again once another worker is Ready
// elsewhere. It heartbeats throughout.
func (a *Activities) evictAllButLastWorker(ctx, drainCtx context.Context, cs kubernetes.Interface, in DrainInput,
	evicted *atomic.Int32, progress *drainProgress) error {
	for {
		v, err := a.judgeWorkers(drainCtx, cs, in.Node)
		if err != nil {
			return err
		}
		h := a.drainHelper(drainCtx, cs, in.GracePeriodSeconds, keepFilter(v))
		dl, _ := drainCtx.Deadline()
		h.Timeout = max(time.Until(dl), time.Millisecond) // 0 would mean "forever" to the helper
		h.OnPodDeletionOrEvictionFinished = func(_ *corev1.Pod, _ bool, err error) {
			if err == nil {
				evicted.Add(1)
			}
		}
		done := make(chan error, 1)
		go func() { done <- drain.RunNodeDrain(h, in.Node) }()
		if err := a.beatUntil(ctx, done, evicted, progress); err != nil || len(v.Keep) == 0 {
			return err
		}
		select {
		case <-drainCtx.Done():
			return drainCtx.Err()
		case <-time.After(a.opts.PollInterval):
		}
	}
}

// beatUntil heartbeats until done answers.
func (a *Activities) beatUntil(ctx context.Context, done <-chan error, evicted *atomic.Int32, progress *drainProgress) error {
	beat := time.NewTicker(a.opts.HeartbeatInterval)
	defer beat.Stop()
	for {
		select {
		case err := <-done:
			return err
		case <-ctx.Done():
			// The helper's context derives from ctx, so it stops too.
			return ctx.Err()
		case <-beat.C:
			progress.Evicted = int(evicted.Load())
			heartbeat(ctx, *progress)
		}
	}
}

// drainHelper is kubectl drain's helper with the platform's choices;
// filters come after skipTenantVMs.
func (a *Activities) drainHelper(ctx context.Context, cs kubernetes.Interface, grace int, filters ...drain.PodFilter) *drain.Helper {
	g := -1 // each pod's own terminationGracePeriodSeconds
	if grace > 0 {
		g = grace
	}
	return &drain.Helper{
		Ctx:                  ctx,
		Client:               cs,
		Force:                true, // pods without a controller are evicted too
		GracePeriodSeconds:   g,
		IgnoreAllDaemonSets:  true,
		DeleteEmptyDirData:   true,
		EvictErrorRetryDelay: a.opts.EvictRetryDelay,
		AdditionalFilters:    append([]drain.PodFilter{skipTenantVMs}, filters...),
		Out:                  logWriter{ctx: ctx},
		ErrOut:               logWriter{ctx: ctx},
	}
}

// skipTenantVMs leaves VM pods on the node: VMs are shut down and
// restarted by ShutdownVMs/StartVMs, not evicted.
func skipTenantVMs(p corev1.Pod) drain.PodDeleteStatus {
	if isVM(&p) {
		return drain.MakePodDeleteStatusSkip()
	}
	return drain.MakePodDeleteStatusOkay()
}

func isVM(p *corev1.Pod) bool { return p.Labels[model.LabelWorkload] == model.WorkloadVM }

// remainingPods counts the pods a drain of the node would still evict
// (terminating ones included).
func (a *Activities) remainingPods(ctx context.Context, cs kubernetes.Interface, in DrainInput) (int, error) {
	list, errs := a.drainHelper(ctx, cs, in.GracePeriodSeconds).GetPodsForDeletion(in.Node)
	if len(errs) > 0 {
		return 0, fmt.Errorf("list pods on node %s: %w", in.Node, errors.Join(errs...))
	}
	return len(list.Pods()), nil
}
