package wiring

import (
	"testing"
	"time"

	"go.temporal.io/sdk/worker"
)

// The worker scales its pollers unless its caller fixed them: a fixed
// count or behaviour is the operator's and stays.
func TestPollersScaleUnlessFixed(t *testing.T) {
	var wo worker.Options
	pollers(&wo)
	if wo.WorkflowTaskPollerBehavior == nil || wo.ActivityTaskPollerBehavior == nil {
		t.Fatalf("default options: workflow %v, activity %v pollers; want both autoscaling",
			wo.WorkflowTaskPollerBehavior, wo.ActivityTaskPollerBehavior)
	}
	fixed := worker.Options{MaxConcurrentWorkflowTaskPollers: 4, ActivityTaskPollerBehavior: worker.NewPollerBehaviorSimpleMaximum(worker.PollerBehaviorSimpleMaximumOptions{MaximumNumberOfPollers: 3})}
	want := fixed.ActivityTaskPollerBehavior
	pollers(&fixed)
	if fixed.WorkflowTaskPollerBehavior != nil || fixed.MaxConcurrentWorkflowTaskPollers != 4 {
		t.Errorf("a fixed workflow-task poller count was replaced: %+v", fixed.WorkflowTaskPollerBehavior)
	}
	if fixed.ActivityTaskPollerBehavior != want {
		t.Errorf("the caller's activity poller behaviour was replaced")
	}
}

// A workflow task waits StickyWait for the worker that holds its run, unless
// the caller chose how long.
func TestStickyWait(t *testing.T) {
	var wo worker.Options
	sticky(&wo)
	if wo.StickyScheduleToStartTimeout != StickyWait {
		t.Errorf("default options: sticky schedule-to-start %v, want %v", wo.StickyScheduleToStartTimeout, StickyWait)
	}
	chosen := worker.Options{StickyScheduleToStartTimeout: 7 * time.Second}
	sticky(&chosen)
	if chosen.StickyScheduleToStartTimeout != 7*time.Second {
		t.Errorf("a chosen sticky schedule-to-start was replaced: %v", chosen.StickyScheduleToStartTimeout)
	}
}
