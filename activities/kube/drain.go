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
	h := a.drainHelper(drainCtx, cs, in.GracePeriodSeconds)
	h.Timeout = max(left, time.Millisecond) // 0 would mean "forever" to the helper
	h.OnPodDeletionOrEvictionFinished = func(_ *corev1.Pod, _ bool, err error) {
		if err == nil {
			evicted.Add(1)
		}
	}

	done := make(chan error, 1)
	if left > 0 {
		go func() { done <- drain.RunNodeDrain(h, in.Node) }()
	} else {
		done <- context.DeadlineExceeded // the first attempt used the whole budget
	}
	beat := time.NewTicker(a.opts.HeartbeatInterval)
	defer beat.Stop()
	var drainErr error
wait:
	for {
		select {
		case drainErr = <-done:
			break wait
		case <-ctx.Done():
			// The helper's context derives from ctx, so it stops too.
			return DrainResult{}, ctx.Err()
		case <-beat.C:
			progress.Evicted = int(evicted.Load())
			heartbeat(ctx, progress)
		}
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

// drainHelper is kubectl drain's helper with the platform's choices.
func (a *Activities) drainHelper(ctx context.Context, cs kubernetes.Interface, grace int) *drain.Helper {
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
		AdditionalFilters:    []drain.PodFilter{skipTenantVMs},
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
