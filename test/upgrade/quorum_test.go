package upgrade_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/invariants"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// Issue 14 (b): a full upgrade of a one-rack site (three KCPs, no spare:
// each is upgraded in place) while a prober reads the API every 200 ms.
// No read fails, quorum holds at every event of the lab's log, and at the
// end etcd's member set is the three active KCPs.
func TestE2EUpgradeKeepsQuorumOneRack(t *testing.T) {
	t.Parallel()
	upgradeKeepsQuorum(t, "../../examples/one-rack.yaml")
}

func upgradeKeepsQuorum(t *testing.T, example string) {
	env := e2e.Start(t, example, e2e.Options{})
	ctx := env.Context(10 * time.Minute)
	failed := probeAPI(t, env, 200*time.Millisecond)
	st := env.Upgrade(ctx, "4.2.0")
	require.Empty(t, failed(), "reads of the API that failed during the upgrade")
	env.RequireMembersAreActiveKCPs(ctx)

	evs := env.Events()
	inv, err := model.LoadInventory(env.InvPath)
	require.NoError(t, err)
	site, err := invariants.SiteFromInventory(inv)
	require.NoError(t, err)
	require.Empty(t, invariants.Check(evs, invariants.WithUpgrade(site, st)))
}

// probeAPI reads the node list every interval until the test ends and
// returns a function giving the reads that failed so far.
func probeAPI(t *testing.T, env *e2e.Env, interval time.Duration) func() []string {
	cfg, err := clientcmd.BuildConfigFromFlags("", env.Inventory.Kubernetes.Kubeconfig)
	require.NoError(t, err)
	cfg.Timeout = 5 * time.Second
	cs, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	var mu sync.Mutex
	var failures []string
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			if _, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{}); err != nil && ctx.Err() == nil {
				mu.Lock()
				failures = append(failures, time.Now().Format(time.RFC3339Nano)+": "+err.Error())
				mu.Unlock()
			}
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(failures)
	}
}
