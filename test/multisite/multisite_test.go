// Package multisite runs rackroll split the way a multi-site installation
// is: workflows on a central worker, BMC and Kubernetes activities on a
// site worker polling rackroll-site-<cluster>, against the dev server and
// the lab. The same run checks what an operator watches: the metrics
// endpoint and logs that name the machine but never its BMC password.
package multisite_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/activities/ledger"
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/logging"
	"github.com/rackroll/rackroll/internal/metrics/prom"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/rackroll/rackroll/worker/wiring"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

func TestMultiSiteUpgradeRunsSiteActivitiesOnSiteWorker(t *testing.T) {
	// The example references these; the caller's values must change nothing.
	t.Setenv("BMC_USERNAME", "junk-user")
	t.Setenv("BMC_PASSWORD", "junk-password")
	env := e2e.Start(t, "../../examples/two-rack.yaml", e2e.Options{})
	// e2e starts an all-in-one worker; replace it with the two halves.
	env.Worker.Stop()
	siteQueue := model.SiteTaskQueue(env.Cluster)

	core, logs := observer.New(zapcore.DebugLevel)
	ep, err := prom.Serve("127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ep.Close() })
	// Central: workflows and ledger activities, no BMC or Kubernetes
	// activity, so a BMC or Kubernetes step that completes ran on the site.
	startWorker(t, env, "central", core, ep.Handler, wiring.Options{NoSiteActivities: true})
	startWorker(t, env, "site", core, nil, wiring.Options{SiteOf: env.Cluster})

	env.Inventory.Site = &model.SiteSpec{}
	require.Equal(t, siteQueue, env.Register().SiteTaskQueue)

	ctx := env.Context(5 * time.Minute)
	env.Upgrade(ctx, "4.2.0")
	require.Equal(t, "4.2.0", env.State().Cluster.RuntimeVersion)

	t.Run("site activities were scheduled on the site queue", func(t *testing.T) {
		onSite, central := scheduledQueues(t, env, api.ServerUpgradeID(env.Cluster, "rack1-c1"))
		require.Contains(t, onSite, "Reimage")
		require.Contains(t, onSite, "Cordon")
		for typ, q := range onSite {
			require.Equal(t, siteQueue, q, typ)
		}
		require.Contains(t, central, "AcquireLease")
		for typ, q := range central {
			require.Equal(t, api.TaskQueue, q, typ)
		}
	})

	t.Run("metrics endpoint shows SDK and rackroll metrics", func(t *testing.T) {
		body := scrape(t, "http://"+ep.Addr+"/metrics")
		for _, want := range []string{
			// The central worker's activities are the ledger's, local
			// activities of the upgrade's runs (kernel.LocalLedger); a
			// remote one runs there only now and then.
			`temporal_workflow_completed_total\{`, `temporal_(local_)?activity_execution_latency_seconds_bucket\{`,
			`rackroll_servers_upgraded_total\{[^}]*cluster="lab-two"[^}]*outcome="succeeded"[^}]*\} [1-9]`,
			`rackroll_rack_upgrades_total\{[^}]*cluster="lab-two"[^}]*outcome="threshold_met"[^}]*\} [1-9]`,
		} {
			if !regexp.MustCompile(want).MatchString(body) {
				t.Errorf("no %s in /metrics; metric names:\n%s", want, names(body))
			}
		}
	})

	t.Run("secret never logged, activity logs name the bmm", func(t *testing.T) {
		ref := env.Inventory.BMCCredentials["default"]
		require.NotEmpty(t, ref.PasswordFile, "the lab writes the BMC password to a file")
		b, err := os.ReadFile(ref.PasswordFile)
		require.NoError(t, err)
		password := strings.TrimSpace(string(b))
		require.NotEmpty(t, password)
		require.Greater(t, logs.Len(), 0)
		hits, withBMM := 0, 0
		for _, e := range logs.All() {
			line := e.Message + " " + fmt.Sprint(e.ContextMap())
			if strings.Contains(line, password) {
				hits++
				t.Errorf("BMC password in a log line: %s", e.Message)
			}
			if m := e.ContextMap(); m["bmm"] != nil && m["ActivityType"] != nil {
				withBMM++
				if withBMM < 4 {
					t.Logf("activity log line: %s %v", e.Message, m)
				}
			}
		}
		require.Zero(t, hits)
		require.Positive(t, withBMM, "activity log lines carry the bmm")
	})
}

func startWorker(t *testing.T, env *e2e.Env, name string, core zapcore.Core, mh client.MetricsHandler, opts wiring.Options) {
	t.Helper()
	c, err := client.NewClientFromExisting(env.Client, client.Options{
		Logger: logging.NewZap(zap.New(core).With(zap.String("worker", name))), MetricsHandler: mh})
	require.NoError(t, err)
	opts.PollInterval = 200 * time.Millisecond
	w := wiring.New(c, opts)
	require.NoError(t, w.Start())
	t.Cleanup(func() { w.Stop(); c.Close() })
}

// scheduledQueues returns the task queue of each activity type the
// workflow scheduled, split into site (BMC, Kubernetes) and ledger ones.
func scheduledQueues(t *testing.T, env *e2e.Env, id string) (site, central map[string]string) {
	ledgerActs := map[string]bool{}
	lt := reflect.TypeFor[*ledger.Activities]()
	for i := range lt.NumMethod() {
		ledgerActs[lt.Method(i).Name] = true
	}
	site, central = map[string]string{}, map[string]string{}
	queue := "" // the workflow's own task queue
	it := env.Client.GetWorkflowHistory(context.Background(), id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		require.NoError(t, err)
		if s := ev.GetWorkflowExecutionStartedEventAttributes(); s != nil {
			queue = s.GetTaskQueue().GetName()
		}
		if m := ev.GetMarkerRecordedEventAttributes(); m != nil && m.GetMarkerName() == "LocalActivity" {
			// A local activity (the ledger's calls, kernel.LocalLedger)
			// runs in the worker that runs the workflow: its queue's.
			var data struct{ ActivityType string }
			require.NoError(t, converter.GetDefaultDataConverter().FromPayloads(m.GetDetails()["data"], &data))
			if ledgerActs[data.ActivityType] {
				central[data.ActivityType] = queue
			} else {
				site[data.ActivityType] = queue
			}
			continue
		}
		a := ev.GetActivityTaskScheduledEventAttributes()
		if a == nil {
			continue
		}
		typ := a.GetActivityType().GetName()
		if ledgerActs[typ] {
			central[typ] = a.GetTaskQueue().GetName()
		} else {
			site[typ] = a.GetTaskQueue().GetName()
		}
	}
	return site, central
}

// names are the metric names of a Prometheus text exposition.
func names(body string) string {
	var out []string
	for _, l := range strings.Split(body, "\n") {
		if n, ok := strings.CutPrefix(l, "# TYPE "); ok {
			out = append(out, n)
		}
	}
	return strings.Join(out, "\n")
}

func scrape(t *testing.T, url string) string {
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return string(b)
}
