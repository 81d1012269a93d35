package bench_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/activities/ledger"
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/keyset"
	"github.com/rackroll/rackroll/internal/lab"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/placement"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/rackroll/rackroll/workflows"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"google.golang.org/protobuf/proto"
)

// BenchmarkHistoryBounds gives a 64-rack × 32-compute site (2,048
// compute servers) the cluster's limit of keysets (32: 4 on the BMCs, 28
// on the nodes), then runs an upgrade of it on the dev server with instant
// hardware, and reports per workflow type the largest history, in events
// and bytes, and the largest payload (a 2 × 2 site with 2 keysets when
// small).
// Goals: the parent under 1,000 events, no history over 5,120, no keyset
// payload over 256 KiB, no payload near Temporal's 2 MB.
func BenchmarkHistoryBounds(b *testing.B) {
	if testing.Short() {
		b.Skip("runs thousands of workflows on the dev server")
	}
	for i := 0; i < b.N; i++ {
		ctx := context.Background()
		c := e2e.DevServer(b)
		w := worker.New(c, api.TaskQueue, worker.Options{MaxConcurrentActivityExecutionSize: 200})
		workflows.Register(w)
		w.RegisterActivity(&ledger.Activities{Client: c})
		w.RegisterActivity(&instant{})
		if err := w.Start(); err != nil {
			b.Fatal(err)
		}
		defer w.Stop()

		inv := lab.SyntheticInventory("site-h", lab.BenchSize(64, 2), 2, lab.BenchSize(32, 2))
		inv.Kubernetes.Kubeconfig = filepath.Join(b.TempDir(), "unused")
		placed, err := placement.Place(inv)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: api.ClusterID(inv.Cluster), TaskQueue: api.TaskQueue},
			api.ClusterWorkflowName, api.ClusterInput{Inventory: *inv, Placement: placed}); err != nil {
			b.Fatal(err)
		}
		keysets := lab.BenchSize(keyset.MaxKeysets, 2)
		withKeysets(b, c, inv.Cluster, keysets)
		zero := 0
		start := time.Now()
		run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: api.UpgradeID(inv.Cluster), TaskQueue: api.TaskQueue},
			api.RuntimeUpgradeWorkflowName, api.UpgradeInput{Cluster: inv.Cluster, TargetVersion: "4.2.0",
				UpdateStrategy: model.UpdateStrategy{WaitTimeMinutes: &zero}})
		if err != nil {
			b.Fatal(err)
		}
		var st api.UpgradeStatus
		if err := run.Get(ctx, &st); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(time.Since(start).Seconds(), "s-upgrade")
		sizes := historySizes(b, c)
		types := make([]string, 0, len(sizes))
		for t := range sizes {
			types = append(types, t)
		}
		sort.Strings(types)
		for _, t := range types {
			s := sizes[t]
			b.ReportMetric(float64(s.events), "events-max-"+t)
			b.ReportMetric(float64(s.bytes)/1024, "KiB-max-"+t)
			b.ReportMetric(float64(s.payload)/1024, "KiB-payload-"+t)
			fmt.Fprintf(os.Stderr, "%-24s largest history: %6d events %8d bytes; largest payload %8d bytes in %s (%d runs)\n", t, s.events, s.bytes, s.payload, s.where, s.runs)
		}
	}
}

// histSize is a history's (or a type's largest) size; where names the
// event that holds the largest payload.
type histSize struct {
	events, bytes, payload, runs int
	where                        string
}

// keep is s with h's largest figures.
func (s histSize) keep(h histSize) histSize {
	s.runs++
	s.events, s.bytes = max(s.events, h.events), max(s.bytes, h.bytes)
	if h.payload > s.payload {
		s.payload, s.where = h.payload, h.where
	}
	return s
}

// sawPayload keeps ev's payload when it is the largest so far.
func (h *histSize) sawPayload(ev *historypb.HistoryEvent) {
	if n := largestPayload(ev); n > h.payload {
		h.payload, h.where = n, payloadEvent(ev)
	}
}

// payloadEvent names an event that carries a payload: its type and, for a
// marker, an activity or an Update, which one.
func payloadEvent(ev *historypb.HistoryEvent) string {
	kind := strings.TrimPrefix(ev.GetEventType().String(), "EVENT_TYPE_")
	name := ev.GetMarkerRecordedEventAttributes().GetMarkerName() + localActivityType(ev) +
		ev.GetActivityTaskScheduledEventAttributes().GetActivityType().GetName() +
		ev.GetWorkflowExecutionUpdateAcceptedEventAttributes().GetAcceptedRequest().GetInput().GetName() +
		ev.GetWorkflowExecutionSignaledEventAttributes().GetSignalName()
	if name == "" {
		return kind
	}
	return kind + " " + name
}

// localActivityType is " (type)" for a local activity's marker: the SDK
// records its type in the marker's "data" detail.
func localActivityType(ev *historypb.HistoryEvent) string {
	data := ev.GetMarkerRecordedEventAttributes().GetDetails()["data"].GetPayloads()
	if len(data) == 0 {
		return ""
	}
	var la struct{ ActivityType string }
	if json.Unmarshal(data[0].GetData(), &la) != nil || la.ActivityType == "" {
		return ""
	}
	return " (" + la.ActivityType + ")"
}

// historySizes reads every execution's history in the namespace (closed
// and open, continued-as-new runs included) and keeps, per type, the
// most events, the most bytes and the largest payload.
func historySizes(b *testing.B, c client.Client) map[string]histSize {
	ctx := context.Background()
	out := map[string]histSize{}
	var token []byte
	for {
		resp, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Namespace: "default", PageSize: 1000, NextPageToken: token})
		if err != nil {
			b.Fatal(err)
		}
		for _, e := range resp.Executions {
			t := e.GetType().GetName()
			out[t] = out[t].keep(historyOf(b, c, e.GetExecution().GetWorkflowId(), e.GetExecution().GetRunId()))
		}
		token = resp.NextPageToken
		if len(token) == 0 {
			return out
		}
	}
}

// historyOf is one run's events, bytes and largest payload.
func historyOf(b *testing.B, c client.Client, id, run string) histSize {
	it := c.GetWorkflowHistory(context.Background(), id, run, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	var h histSize
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			b.Fatal(err)
		}
		h.events++
		h.bytes += proto.Size(ev)
		h.sawPayload(ev)
	}
	return h
}
