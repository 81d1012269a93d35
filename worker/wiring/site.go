package wiring

import (
	"time"

	"github.com/rackroll/rackroll/activities/bmc"
	"github.com/rackroll/rackroll/activities/etcd"
	"github.com/rackroll/rackroll/activities/image"
	"github.com/rackroll/rackroll/activities/kube"
	"github.com/rackroll/rackroll/activities/ledger"
	"github.com/rackroll/rackroll/activities/sites"
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/workflows"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
)

// A worker runs in one of three shapes (docs/production.md#multi-site):
//
//   - all-in-one (default): workflows, ledger, BMC and Kubernetes
//     activities on task queue rackroll;
//   - central (NoSiteActivities): workflows and ledger activities only, for
//     an installation where every site has its own site worker;
//   - site (SiteOf): BMC and Kubernetes activities only, on the cluster's
//     site task queue, run inside the site's network where its BMCs and
//     Kubernetes API are reachable.
//
// Workflows send a cluster's BMC and Kubernetes activities to the site
// queue when its inventory has a site section (workflows/kernel/route.go).

// taskQueueOf is the queue a worker with opts polls.
func taskQueueOf(opts Options) string {
	switch {
	case opts.TaskQueue != "":
		return opts.TaskQueue
	case opts.SiteOf != "":
		return model.SiteTaskQueue(opts.SiteOf)
	}
	return api.TaskQueue
}

// Register puts the workflows and activities of opts' mode on r.
func Register(r worker.Registry, c client.Client, opts Options) {
	if opts.SiteOf == "" {
		workflows.Register(r)
		r.RegisterActivity(&ledger.Activities{Client: c})
		r.RegisterActivity(&sites.Activities{Client: c, Namespace: opts.Namespace})
		if opts.NoSiteActivities {
			return
		}
	}
	poll := opts.PollInterval
	if poll <= 0 {
		poll = 2 * time.Second
	}
	acts := &bmc.Activities{PollInterval: poll, RequestTimeout: opts.BMCRequestTimeout, PowerOnTimeout: opts.BMCPowerOnTimeout,
		Resolver: bmc.SecretResolver{Secrets: secretsIn(opts.Management)}}
	if c != nil {
		// A firmware update's or a reset's record reaches the server before
		// the request goes out: a worker killed meanwhile is resumed
		// without a second.
		acts.Heartbeats = c
	}
	r.RegisterActivity(acts)
	// Kubernetes clients come from the ledger's kubeconfig reference, read
	// through Temporal: a site worker needs no inventory of its own.
	// The BMM keysets' keys too, for the keyset pods (ledgerNodeKeys).
	kopts := kube.Options{PollInterval: poll, WorkerPods: opts.WorkerPods, KeysetImage: opts.KeysetImage}
	if c != nil {
		kopts.NodeKeys = ledgerNodeKeys{c}
	}
	r.RegisterActivity(kube.New(newClusterClients(c, opts.Management), kopts))
	// etcd: the inventory's controlPlane.etcd travels in each input; the
	// worker reads its TLS files.
	r.RegisterActivity(&etcd.Activities{PollInterval: poll})
	// The image preflight asks from where the BMCs fetch: the site.
	r.RegisterActivity(&image.Activities{})
}
