// Command worker is rackroll's Temporal worker: it polls task queue
// "rackroll" and runs every workflow and activity. It connects like any
// Temporal SDK client (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY,
// TEMPORAL_TLS_*, TEMPORAL_PROFILE and temporal.toml), and stops gracefully on
// SIGINT or SIGTERM, letting running activities finish or heartbeat out.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/rackroll/rackroll/activities/kube"
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/logging"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/temporalconn"
	"github.com/rackroll/rackroll/internal/version"
	"github.com/rackroll/rackroll/worker/wiring"
	"github.com/spf13/pflag"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.uber.org/zap"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := pflag.NewFlagSet("worker", pflag.ContinueOnError)
	fs.AddGoFlagSet(flag.CommandLine)
	var conn temporalconn.Flags
	conn.Register(fs)
	taskQueue := fs.String("task-queue", api.TaskQueue, "task queue to poll")
	logLevel := fs.String("log-level", "info", "debug, info, warn or error")
	devLog := fs.Bool("log-console", false, "human-readable console logs instead of JSON")
	showVersion := fs.Bool("version", false, "print the version and exit")
	pollInterval := fs.Duration("poll-interval", 2*time.Second, "how often BMC and Kubernetes waits poll (labs: shorter)")
	metricsAddr := metricsAddrFlag(fs)
	healthAddr := healthAddrFlag(fs)
	siteOf := fs.String("site-of", "", "run as the site worker of this cluster: BMC and Kubernetes activities only, on rackroll-site-<cluster> (docs/production.md#multi-site)")
	workerPods := fs.String("worker-pods", kube.DefaultWorkerPods, "label selector of this worker's own pods: a drain never evicts the last Ready one (docs/install.md#where-the-workers-run)")
	kubeconfig := fs.String("kubeconfig", "", "outside a pod, the kubeconfig of the cluster this worker reads Secrets from (BMC keysets' passwords, kubeconfigSecretRef); default $KUBECONFIG, else ~/.kube/config; in a pod its ServiceAccount (docs/install.md#a-worker-outside-a-pod)")
	noSite := fs.Bool("no-site-activities", false, "central worker: workflows and ledger activities only, every site has its own --site-of worker")
	vf := versioningFlagsOn(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *showVersion {
		fmt.Println(version.String())
		return nil
	}
	if err := kube.ValidWorkerPods(*workerPods); err != nil {
		return err
	}
	// Checked before connecting: a bad build ID is the operator's to fix.
	deployment, versionLine, err := vf.versioned(os.Getenv, *siteOf)
	if err != nil {
		return err
	}
	// So is an image no kubelet could pull (docs/keysets-nodes.md#naming-the-image).
	keysetImage, err := kube.KeysetImageFromEnv(os.Getenv, version.Version)
	if err != nil {
		return err
	}
	zl, err := logging.New(*logLevel, *devLog)
	if err != nil {
		return err
	}
	defer zl.Sync()

	// Checked before connecting: a kubeconfig named and broken is the
	// operator's to fix.
	mgmt, err := kube.FindManagement(*kubeconfig)
	if err != nil {
		return err
	}
	opts, err := conn.ClientOptions()
	if err != nil {
		return err
	}
	opts.Logger = logging.NewZap(zl)
	// Say which key is in use: a worker and starter with different keys
	// fail on each other's payloads, and the key ids tell why.
	if cdc, err := conn.Codec(nil); err == nil && cdc != nil {
		zl.Info("payload codec on", zap.String("keyID", cdc.KeyID()))
	}
	mh, stopMetrics, err := serveMetrics(*metricsAddr, zl)
	if err != nil {
		return err
	}
	defer stopMetrics()
	opts.MetricsHandler = mh
	c, err := client.Dial(opts)
	if err != nil {
		return fmt.Errorf("connect to Temporal at %s: %w (is the dev server up? `make dev-server`)", opts.HostPort, err)
	}
	defer c.Close()
	stopHealth, err := serveHealth(*healthAddr, c, zl)
	if err != nil {
		return err
	}
	defer stopHealth()

	if *siteOf != "" && !fs.Changed("task-queue") {
		*taskQueue = model.SiteTaskQueue(*siteOf)
	}
	w := wiring.New(c, wiring.Options{TaskQueue: *taskQueue, PollInterval: *pollInterval,
		SiteOf: *siteOf, NoSiteActivities: *noSite, Management: mgmt.Clientset(), WorkerPods: *workerPods, KeysetImage: keysetImage, Namespace: opts.Namespace, Worker: worker.Options{
			// Give activities time to notice cancellation and stop cleanly.
			WorkerStopTimeout: 10 * time.Second,
			DeploymentOptions: deployment,
		}})
	zl.Info("worker starting", zap.String("version", version.String()), zap.String("address", opts.HostPort),
		zap.String("namespace", nsOrDefault(opts.Namespace)), zap.String("taskQueue", *taskQueue),
		zap.String("siteOf", *siteOf), zap.Bool("noSiteActivities", *noSite), zap.String("workerPods", *workerPods),
		zap.String("deploymentVersion", versionLine), zap.String("keysetImage", keysetImage.Ref), zap.String("managementCluster", orNone(mgmt.From)))
	if keysetImage.Default && version.Version == "dev" {
		// A development build's default names a tag no release publishes.
		zl.Warn("the keyset pods name an image no release publishes: build it (make image), push it and set "+kube.KeysetImageEnv,
			zap.String("keysetImage", keysetImage.Ref))
	}
	// worker.InterruptCh closes on SIGINT/SIGTERM; Run then stops polling and
	// waits for in-flight tasks.
	if err := w.Run(worker.InterruptCh()); err != nil {
		return err
	}
	zl.Info("worker stopped")
	return nil
}

func nsOrDefault(ns string) string {
	if ns == "" {
		return client.DefaultNamespace
	}
	return ns
}

// orNone says that the worker found no management cluster: it reads no
// Secrets.
func orNone(from string) string {
	if from == "" {
		return "none: not in a pod, no --kubeconfig, $KUBECONFIG or ~/.kube/config (no Secret is read)"
	}
	return from
}
