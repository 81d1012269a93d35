// Package kube holds the Temporal activities that act on a site's
// Kubernetes API: cordon, drain (k8s.io/kubectl/pkg/drain and the eviction
// API, so PodDisruptionBudgets are honoured), tenant VM shutdown and
// restart, node labels, deletion and readiness. Every activity is
// idempotent, heartbeats while it waits and stops when its context ends.
// Inputs name nodes only; credentials come from the ClientSource.
package kube

import (
	"context"
	"time"

	"github.com/rackroll/rackroll/internal/keyset"
	"github.com/rackroll/rackroll/internal/version"
	"go.temporal.io/sdk/activity"
	"k8s.io/client-go/kubernetes"
)

// Defaults (docs/behaviour.md#time-limits: drains get 20 minutes, VM shutdowns 10, then
// the upgrade proceeds).
const (
	DefaultDrainTimeout      = 20 * time.Minute
	DefaultShutdownTimeout   = 10 * time.Minute
	DefaultPollInterval      = 2 * time.Second
	DefaultHeartbeatInterval = 2 * time.Second
	DefaultEvictRetryDelay   = 5 * time.Second // kubectl drain's
)

// Options tune the activities; zero values pick the defaults.
type Options struct {
	PollInterval      time.Duration // how often waits re-read the API
	HeartbeatInterval time.Duration // how often long operations heartbeat
	EvictRetryDelay   time.Duration // pause after an eviction a PDB refused
	// WorkerPods is the label selector of rackroll's own worker pods, which
	// a drain never evicts the last Ready one of (default DefaultWorkerPods).
	WorkerPods string
	// NodeKeys reads the BMM keysets' keys for ApplyNodeKeys (the ledger,
	// through Temporal, in a worker); nil: ApplyNodeKeys fails as
	// misconfigured.
	NodeKeys NodeKeysSource
	// KeysetImage is the keyset pod's image (KeysetImageFromEnv); an
	// empty Ref is the release's image of this build's version.
	KeysetImage KeysetImage
}

// Activities is registered with a worker; its exported methods are the
// activities.
type Activities struct {
	clients ClientSource
	opts    Options
}

// New returns the activities for the cluster clients reaches (nil:
// Default(), the kubeconfig kubectl would use).
func New(clients ClientSource, opts Options) *Activities {
	if clients == nil {
		clients = Default()
	}
	if opts.PollInterval <= 0 {
		opts.PollInterval = DefaultPollInterval
	}
	if opts.KeysetImage.Ref == "" {
		opts.KeysetImage = KeysetImage{Ref: keyset.NodeImage(version.Version), Default: true}
	}
	if opts.HeartbeatInterval <= 0 {
		opts.HeartbeatInterval = DefaultHeartbeatInterval
	}
	if opts.EvictRetryDelay <= 0 {
		opts.EvictRetryDelay = DefaultEvictRetryDelay
	}
	if opts.WorkerPods == "" {
		opts.WorkerPods = DefaultWorkerPods
	}
	return &Activities{clients: clients, opts: opts}
}

// nodeClient is client for an activity on node, which must be named.
func (a *Activities) nodeClient(ctx context.Context, node string) (kubernetes.Interface, error) {
	if node == "" {
		return nil, invalidInput("node name is empty")
	}
	return a.client(ctx)
}

func (a *Activities) client(ctx context.Context) (kubernetes.Interface, error) {
	cs, err := a.clients.Clientset(ctx)
	if err != nil {
		return nil, configError(err)
	}
	return cs, nil
}

// heartbeat records progress when running as an activity (a plain context,
// as in unit tests, is fine too).
func heartbeat(ctx context.Context, details ...any) {
	if activity.IsActivity(ctx) {
		activity.RecordHeartbeat(ctx, details...)
	}
}
