package wiring

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/rackroll/rackroll/activities/bmc"
	"github.com/rackroll/rackroll/activities/kube"
	"github.com/rackroll/rackroll/internal/api"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// clusterClients is the kube activities' ClientSource for a worker that
// serves many clusters. Every rackroll workflow id names its cluster
// (upgrade:<cluster>:…, action:<cluster>:…), and the cluster's ledger knows
// where its kubeconfig is, so no activity input carries it.
type clusterClients struct {
	temporal   client.Client
	management func() (kubernetes.Interface, error) // for kubeconfigSecretRef
	ttl        time.Duration

	mu      sync.Mutex
	byClust map[string]cachedClient
}

type cachedClient struct {
	ref     string
	source  kube.ClientSource
	checked time.Time
}

func newClusterClients(c client.Client, management func() (kubernetes.Interface, error)) *clusterClients {
	return &clusterClients{temporal: c, management: management, ttl: time.Minute, byClust: map[string]cachedClient{}}
}

// ClusterOf returns the cluster a rackroll workflow id belongs to.
func ClusterOf(workflowID string) (string, error) {
	parts := strings.Split(workflowID, ":")
	if len(parts) < 2 || parts[1] == "" {
		return "", fmt.Errorf("workflow id %q does not name a cluster (want kind:<cluster>[:…])", workflowID)
	}
	return parts[1], nil
}

func (s *clusterClients) Clientset(ctx context.Context) (kubernetes.Interface, error) {
	if !activity.IsActivity(ctx) {
		return nil, fmt.Errorf("kube activities need an activity context to find their cluster")
	}
	cluster, err := ClusterOf(activity.GetInfo(ctx).WorkflowExecution.ID)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	cc, ok := s.byClust[cluster]
	s.mu.Unlock()
	if !ok || time.Since(cc.checked) > s.ttl {
		ref, err := s.kubeconfigRef(ctx, cluster)
		if err != nil {
			return nil, err
		}
		if !ok || ref != cc.ref {
			cc = cachedClient{ref: ref, source: s.sourceFor(ref)}
		}
		cc.checked = time.Now()
		s.mu.Lock()
		s.byClust[cluster] = cc
		s.mu.Unlock()
	}
	return cc.source.Clientset(ctx)
}

func (s *clusterClients) kubeconfigRef(ctx context.Context, cluster string) (string, error) {
	v, err := s.temporal.QueryWorkflow(ctx, api.ClusterID(cluster), "", api.QueryState)
	if err != nil {
		// The ledger answers through a worker: one that is restarting, or a
		// frontend that cancels the stream, is a passing condition.
		return "", kube.SourceUnavailable(fmt.Errorf("cluster %s: read its kubeconfig reference from the ledger: %w", cluster, err))
	}
	var st api.ClusterState
	if err := v.Get(&st); err != nil {
		return "", err
	}
	if st.Kubeconfig == "" {
		return "", fmt.Errorf("cluster %s has no kubernetes.kubeconfig, kubeconfigSecretRef or inCluster in its inventory: add one and run `starter cluster register` again", cluster)
	}
	return st.Kubeconfig, nil
}

func (s *clusterClients) sourceFor(ref string) kube.ClientSource {
	if ref == api.KubeconfigInCluster {
		return kube.InCluster()
	}
	if nsName, ok := strings.CutPrefix(ref, "secret:"); ok {
		return &secretKubeconfig{ref: nsName, management: s.management}
	}
	return kube.Kubeconfig(ref)
}

// secretKubeconfig reads a site's kubeconfig from a Secret (key
// "kubeconfig" or "value") in the cluster the worker itself runs against.
type secretKubeconfig struct {
	ref        string
	management func() (kubernetes.Interface, error)
	mu         sync.Mutex
	cs         kubernetes.Interface
}

func (s *secretKubeconfig) Clientset(ctx context.Context) (kubernetes.Interface, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cs != nil {
		return s.cs, nil
	}
	ns, name, ok := strings.Cut(s.ref, "/")
	if !ok {
		return nil, fmt.Errorf("kubeconfigSecretRef %q: want namespace/name", s.ref)
	}
	get := secretsIn(s.management)
	if get == nil {
		return nil, fmt.Errorf("kubeconfigSecretRef %s needs the worker to reach the cluster holding the Secret, and this worker found none: %s; or name a kubeconfig file in the inventory instead", s.ref, bmc.NoManagementHint)
	}
	sec, err := get(ctx, ns, name)
	if err != nil {
		return nil, fmt.Errorf("read kubeconfig Secret %s: %w", s.ref, err)
	}
	data := sec["kubeconfig"]
	if len(data) == 0 {
		data = sec["value"]
	}
	if len(data) == 0 {
		return nil, fmt.Errorf("Secret %s has no kubeconfig (or value) key", s.ref)
	}
	cfg, err := clientcmd.RESTConfigFromKubeConfig(data)
	if err != nil {
		return nil, fmt.Errorf("Secret %s: %w", s.ref, err)
	}
	kube.Tune(cfg)
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	s.cs = cs
	return cs, nil
}
