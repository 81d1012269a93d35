package wiring_test

import (
	"context"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/rackroll/rackroll/worker/wiring"
	enumspb "go.temporal.io/api/enums/v1"
	taskqueuepb "go.temporal.io/api/taskqueue/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/worker"
)

// The worker connects to a real dev server and polls task queue rackroll
// for both workflow and activity tasks.
func TestWorkerPollsRackrollTaskQueue(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the Temporal dev server")
	}
	ctx := context.Background()
	c := e2e.DevServer(t)

	w := wiring.New(c, wiring.Options{Worker: worker.Options{}})
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	for _, kind := range []enumspb.TaskQueueType{enumspb.TASK_QUEUE_TYPE_WORKFLOW, enumspb.TASK_QUEUE_TYPE_ACTIVITY} {
		deadline := time.Now().Add(30 * time.Second)
		for {
			resp, err := c.WorkflowService().DescribeTaskQueue(ctx, &workflowservice.DescribeTaskQueueRequest{
				Namespace:     "default",
				TaskQueue:     &taskqueuepb.TaskQueue{Name: api.TaskQueue, Kind: enumspb.TASK_QUEUE_KIND_NORMAL},
				TaskQueueType: kind,
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(resp.Pollers) > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("no %v pollers on task queue %s", kind, api.TaskQueue)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
}
