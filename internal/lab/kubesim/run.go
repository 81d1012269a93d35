package kubesim

import (
	"context"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
)

// Workers per queue: enough to keep a thousand nodes' heartbeats flowing
// while the client's QPS limit paces the apiserver.
const (
	nodeWorkers = 8
	podWorkers  = 4
	pdbWorkers  = 4
	rsWorkers   = 2
	// resyncTicks: every this many ticks, PDBs and ReplicaSets are
	// re-examined even without an event (nodes are every tick).
	resyncTicks = 20
)

// Run is the simulator's loop; it returns when ctx ends. It may be called
// once (later calls return at once).
func (s *Sim) Run(ctx context.Context) {
	ran := false
	s.runOnce.Do(func() { ran = true; s.run(ctx) })
	if !ran {
		<-ctx.Done()
	}
}

func (s *Sim) run(ctx context.Context) {
	factory := informers.NewSharedInformerFactory(s.client, 0)
	nodeInf := factory.Core().V1().Nodes()
	podInf := factory.Core().V1().Pods()
	pdbInf := factory.Policy().V1().PodDisruptionBudgets()
	rsInf := factory.Apps().V1().ReplicaSets()
	// AddIndexers only fails on an informer that has started.
	if err := podInf.Informer().AddIndexers(podIndexers); err != nil {
		panic(err)
	}
	if err := pdbInf.Informer().AddIndexers(pdbIndexers); err != nil {
		panic(err)
	}
	s.nodes, s.pods, s.podIdx = nodeInf.Lister(), podInf.Lister(), podInf.Informer().GetIndexer()
	s.pdbs, s.pdbIdx, s.rss = pdbInf.Lister(), pdbInf.Informer().GetIndexer(), rsInf.Lister()
	s.addHandlers(nodeInf.Informer(), podInf.Informer(), pdbInf.Informer(), rsInf.Informer())

	factory.Start(ctx.Done())
	defer factory.Shutdown()
	var wg sync.WaitGroup
	defer wg.Wait()
	queues := []workqueue.TypedRateLimitingInterface[string]{s.nodeQ, s.podQ, s.pdbQ, s.rsQ}
	defer func() {
		for _, q := range queues {
			q.ShutDown()
		}
	}()
	if !cache.WaitForCacheSync(ctx.Done(), nodeInf.Informer().HasSynced, podInf.Informer().HasSynced,
		pdbInf.Informer().HasSynced, rsInf.Informer().HasSynced) {
		return
	}
	close(s.synced)

	start := func(n int, q workqueue.TypedRateLimitingInterface[string], fn func(context.Context, string) error) {
		for range n {
			wg.Add(1)
			go func() { defer wg.Done(); s.worker(ctx, q, fn) }()
		}
	}
	start(nodeWorkers, s.nodeQ, s.reconcileNode)
	start(podWorkers, s.podQ, s.reconcilePod)
	start(pdbWorkers, s.pdbQ, s.reconcilePDB)
	start(rsWorkers, s.rsQ, s.reconcileRS)

	tick := time.NewTicker(s.opts.Tick)
	defer tick.Stop()
	for n := 0; ; n++ {
		s.resync(n%resyncTicks == 0)
		s.schedulePending(ctx)
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// resync queues every machine's node (heartbeats and state are checked
// in memory, so this is cheap) and, when all is set, every PDB and
// ReplicaSet too.
func (s *Sim) resync(all bool) {
	for _, n := range s.Nodes() {
		s.nodeQ.Add(n)
	}
	if !all {
		return
	}
	if list, err := s.pdbs.PodDisruptionBudgets(s.opts.Namespace).List(labels.Everything()); err == nil {
		for _, p := range list {
			s.pdbQ.Add(p.Namespace + "/" + p.Name)
		}
	}
	if list, err := s.rss.ReplicaSets(s.opts.Namespace).List(labels.Everything()); err == nil {
		for _, r := range list {
			s.rsQ.Add(r.Namespace + "/" + r.Name)
		}
	}
}

func (s *Sim) worker(ctx context.Context, q workqueue.TypedRateLimitingInterface[string], fn func(context.Context, string) error) {
	for {
		key, shutdown := q.Get()
		if shutdown {
			return
		}
		if err := fn(ctx, key); err != nil && ctx.Err() == nil {
			q.AddRateLimited(key)
		} else {
			q.Forget(key)
		}
		q.Done(key)
	}
}

func (s *Sim) isSynced() bool {
	select {
	case <-s.synced:
		return true
	default:
		return false
	}
}

// WaitSynced blocks until Run's caches are filled (or ctx ends).
func (s *Sim) WaitSynced(ctx context.Context) error {
	select {
	case <-s.synced:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
