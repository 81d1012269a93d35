// Package wiring assembles rackroll's Temporal worker: the workflows and
// activities of its mode (all-in-one, central or site; site.go) registered
// on its task queue. worker/main.go runs it; end-to-end
// tests run it in-process against the dev server and the lab.
package wiring

import (
	"time"

	"github.com/rackroll/rackroll/activities/kube"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/worker"
	"k8s.io/client-go/kubernetes"
)

// Options configure New.
type Options struct {
	TaskQueue string // default api.TaskQueue (a site worker: its site queue)
	Worker    worker.Options
	// PollInterval is how often BMC and Kubernetes waits poll (default 2 s).
	PollInterval time.Duration
	// BMCRequestTimeout bounds each Redfish request (default 30 s); tests
	// that make BMCs hang shorten it so a hung request costs seconds.
	BMCRequestTimeout time.Duration
	// BMCPowerOnTimeout is how long a machine may stay Off after its BMC
	// accepted a power-on (default 5 m); tests shorten it.
	BMCPowerOnTimeout time.Duration
	// SiteOf makes a site worker for that cluster: it polls the cluster's
	// site task queue (rackroll-site-<cluster> unless TaskQueue says
	// otherwise) and runs BMC and Kubernetes activities only.
	SiteOf string
	// NoSiteActivities makes a central worker: workflows and ledger
	// activities only, BMC and Kubernetes work left to site workers.
	NoSiteActivities bool
	// Management reaches the cluster that holds kubeconfig Secrets
	// (kubeconfigSecretRef); nil when the worker has none.
	Management func() (kubernetes.Interface, error)
	// WorkerPods selects the worker's own pods, which a drain never evicts
	// the last Ready one of (default kube.DefaultWorkerPods).
	WorkerPods string
	// KeysetImage is the keyset pod's image and pull secret
	// (kube.KeysetImageFromEnv); empty: the release's of this build.
	KeysetImage kube.KeysetImage
	// Namespace is the client's Temporal namespace ("" is default): the
	// fleet reads its sites' task queues in it.
	Namespace string
}

// New returns a worker with everything its mode needs registered; call
// Run or Start.
func New(c client.Client, opts Options) worker.Worker {
	wo := opts.Worker
	// Activity log lines carry the cluster and the BMM (logfields.go); an
	// RBAC denial fails its step naming the permission (forbidden.go).
	wo.Interceptors = append(append([]interceptor.WorkerInterceptor{}, wo.Interceptors...), &logFields{}, &forbidden{})
	pollers(&wo)
	sticky(&wo)
	w := worker.New(c, taskQueueOf(opts), wo)
	Register(w, c, opts)
	return w
}

// StickyWait is how long a workflow task waits on this worker's sticky
// queue (the runs it holds in its cache) before the server hands it to the
// normal queue, with the whole history, to any worker (sticky).
const StickyWait = 30 * time.Second

// sticky sets StickyWait unless the caller chose one. The SDK's default
// is 5 s: a worker busy past it (the fleet benchmark's central worker, one
// site of 512 servers on two cores) got its ledger's tasks with the whole
// history instead, replayed thousands of events, and, while the ledger's
// Updates kept coming, failed many of those replays against a history
// that had moved on — each failure another replay. The fleet benchmark at
// one site of 512 servers (RACKROLL_FLEET_SITES=1 RACKROLL_FLEET_RACKS=16,
// 2026-11-29, 6319109 with this commit's task counting): at 5 s, 87 failed tasks, 228 over five seconds, 131
// CPU-seconds of the central worker per 1,000 servers, 236 s; at 30 s, 10,
// 10, 58 and 188 s (one run each, on a shared two-core machine). The
// cost: a task sent to a killed worker's sticky queue waits up to
// StickyWait, not 5 s, for another worker (the server stops sending there
// once it has seen no poller for 10 s), and with several replicas a busy
// one keeps its runs' tasks that long; a graceful stop hands them over at
// once (the SDK's ShutdownWorker).
func sticky(wo *worker.Options) {
	if wo.StickyScheduleToStartTimeout == 0 {
		wo.StickyScheduleToStartTimeout = StickyWait
	}
}

// pollers lets the SDK scale the worker's pollers with the load the server
// reports, unless the caller fixed them. With the default two fixed
// workflow-task pollers, the ledger's Updates (about eight per server),
// the racks' and servers' tasks queue behind one another: each link of the
// upgrade's serial chain parent → rack → server then waits for a free
// poller, not for the server. A floor of pollers stays through the quiet
// spells (a rack's servers waiting on their reimages), so the next rack's
// first tasks — a new workflow's first task goes to the normal queue — find
// a poller waiting instead of one being scaled up again; an idle poller is
// one long poll.
func pollers(wo *worker.Options) {
	const minPollers = 4 // of each kind; the SDK's default floor is 1
	auto := worker.NewPollerBehaviorAutoscaling(worker.PollerBehaviorAutoscalingOptions{MinimumNumberOfPollers: minPollers})
	if wo.WorkflowTaskPollerBehavior == nil && wo.MaxConcurrentWorkflowTaskPollers == 0 {
		wo.WorkflowTaskPollerBehavior = auto
	}
	if wo.ActivityTaskPollerBehavior == nil && wo.MaxConcurrentActivityTaskPollers == 0 {
		wo.ActivityTaskPollerBehavior = auto
	}
}
