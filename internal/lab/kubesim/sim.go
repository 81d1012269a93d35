// Package kubesim plays the parts of a Kubernetes site that the lab's bare
// kube-apiserver lacks: a kubelet per machine (node registration, Ready
// condition and heartbeats driven by the emulated BMC's power and OS
// state), the pods' lifecycle on those nodes, and just enough of the
// controller manager (disruption, ReplicaSet, pod GC) and scheduler for
// the real eviction API to enforce PodDisruptionBudgets during drains.
// Its nodes also play keyset pods, holding the OS users they carry until
// the next install (keysets.go).
//
// It is one informer-driven controller with a handful of work queues, not
// a goroutine per node, so it scales to thousands of machines.
package kubesim

import (
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"

	"k8s.io/client-go/kubernetes"
	appslisters "k8s.io/client-go/listers/apps/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	policylisters "k8s.io/client-go/listers/policy/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	"github.com/rackroll/rackroll/internal/keyset"
	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/lab/faults"
)

// Machine is one bare-metal machine and the node it registers as.
type Machine struct {
	Name            string // BMM name, used in events
	Rack            string
	NodeName        string // Kubernetes node name (default Name)
	Role            string // kcp, kcp-spare, management, compute
	ManagementGroup string // a | b, management servers only
	RuntimeVersion  string // version the machine runs at Setup
	// TenantLoad is the share (0–1) of a compute node's allocatable its
	// tenant pods request (0: no requests, anything fits).
	TenantLoad float64
	// Unracked is a machine not racked yet: off, no Node, no workloads.
	// Its kubelet registers the Node when its OS first boots (racked).
	Unracked bool
}

// MachineState is what the BMC emulator knows about a machine.
type MachineState struct {
	Powered        bool
	OSRunning      bool   // booted into the runtime OS (false while booting or reimaging)
	RuntimeVersion string // the version it booted; "" keeps the current one
	// Installs counts the OS installs that completed (the BMC's
	// ReimageCount); a new one wipes what keyset pods left (keysets.go).
	Installs int
}

// Options configure a Sim. Zero values pick the defaults below.
type Options struct {
	Events events.Sink
	// Drain is how long an evicted pod takes to terminate (default: the
	// pod's own grace period, which the apiserver records on deletion).
	Drain time.Duration
	// Tick is the period of the resync loop (default 500ms).
	Tick time.Duration
	// Heartbeat is how often a live kubelet refreshes lastHeartbeatTime
	// (default 10s; kept modest so a thousand nodes cost ~100 writes/s).
	Heartbeat time.Duration
	// Workloads places the tenant ReplicaSets, PDBs and VMs at Setup.
	Workloads bool
	// Namespace of the tenant workloads (default TenantNamespace). The
	// ReplicaSet and disruption controllers act in it only, so several
	// simulators with distinct machines and namespaces can share one
	// apiserver (the tests do).
	Namespace string
	// RelabelAgent runs a node agent beside each kubelet that sets
	// model.LabelRuntimeVersion to the booted version on every boot (a
	// site's own add-on). Without it the kubelets are stock: --node-labels,
	// the runtime-version label among them, are applied only when a kubelet
	// registers a Node that does not exist, so a reimaged node keeps the
	// label of its first install while its osImage and bootID change.
	RelabelAgent bool
}

const (
	defaultTick      = 500 * time.Millisecond
	defaultHeartbeat = 10 * time.Second
)

// Sim is the simulator. Create with New, then Setup, then Run.
type Sim struct {
	client kubernetes.Interface
	opts   Options
	sink   events.Sink

	mu        sync.Mutex
	machines  map[string]*machine  // by BMM name
	byNode    map[string]*machine  // by node name
	order     []string             // BMM names in input order
	termSince map[string]time.Time // terminating pod key -> when first seen terminating
	creating  map[string]time.Time // pod key -> created but not yet in the cache

	// Set up by New so callers may enqueue before Run; drained by Run.
	nodeQ, podQ, pdbQ, rsQ workqueue.TypedRateLimitingInterface[string]

	// Informer caches, valid once synced is closed.
	nodes   corelisters.NodeLister
	pods    corelisters.PodLister
	podIdx  cache.Indexer
	pdbs    policylisters.PodDisruptionBudgetLister
	pdbIdx  cache.Indexer
	rss     appslisters.ReplicaSetLister
	synced  chan struct{}
	runOnce sync.Once

	selectors selectorCache
}

// machine is a Machine plus what the simulator tracks about it.
type machine struct {
	Machine
	state    MachineState
	faults   map[faults.Kind]bool
	deleted  bool              // node deleted; stays gone until the OS next boots
	labels   map[string]string // last labels seen, to re-register with
	cordoned bool              // last spec.unschedulable seen
	boot     bootInfo          // the OS it booted last
	// The OS's rackroll users and the keys the last keyset pod gave
	// (keysets.go), until the next install (installs seen so far).
	users    []keyset.Fingerprinted
	given    *keyset.NodeKeys
	installs int
	pull     pullState // the keyset pod's image pull under faults.ImagePullFails
}

// New returns a simulator for machines. Every machine starts powered and
// running its RuntimeVersion, matching the Ready nodes Setup creates.
func New(client kubernetes.Interface, machines []Machine, opts Options) *Sim {
	if opts.Tick <= 0 {
		opts.Tick = defaultTick
	}
	if opts.Heartbeat <= 0 {
		opts.Heartbeat = defaultHeartbeat
	}
	if opts.Namespace == "" {
		opts.Namespace = TenantNamespace
	}
	s := &Sim{
		client:    client,
		opts:      opts,
		sink:      opts.Events,
		machines:  map[string]*machine{},
		byNode:    map[string]*machine{},
		termSince: map[string]time.Time{},
		creating:  map[string]time.Time{},
		nodeQ:     newQueue("kubesim-nodes"),
		podQ:      newQueue("kubesim-pods"),
		pdbQ:      newQueue("kubesim-pdbs"),
		rsQ:       newQueue("kubesim-replicasets"),
		synced:    make(chan struct{}),
	}
	if s.sink == nil {
		s.sink = (*events.Log)(nil)
	}
	for _, m := range machines {
		if m.NodeName == "" {
			m.NodeName = m.Name
		}
		mm := &machine{
			Machine: m,
			state:   MachineState{Powered: true, OSRunning: true, RuntimeVersion: m.RuntimeVersion},
			faults:  map[faults.Kind]bool{},
			labels:  nodeLabels(m, m.RuntimeVersion),
			boot:    newBoot(m.RuntimeVersion),
		}
		if m.Unracked {
			// No Node has shown labels yet: its first registration logs
			// them all.
			mm.state, mm.labels = MachineState{RuntimeVersion: m.RuntimeVersion}, nil
		}
		s.machines[m.Name] = mm
		s.byNode[m.NodeName] = mm
		s.order = append(s.order, m.Name)
	}
	return s
}

// newQueue retries failed keys quickly (conflicts are the usual cause) and
// never backs off beyond a few seconds, so a lab recovers promptly.
func newQueue(name string) workqueue.TypedRateLimitingInterface[string] {
	return workqueue.NewTypedRateLimitingQueueWithConfig(
		workqueue.NewTypedItemExponentialFailureRateLimiter[string](10*time.Millisecond, 5*time.Second),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: name})
}

// SetMachineState records the machine's power/OS state as the BMC
// emulator sees it; the kubelet loop turns it into node status. A machine
// whose node was deleted re-registers when its OS boots again.
func (s *Sim) SetMachineState(name string, st MachineState) {
	s.mu.Lock()
	m, ok := s.machines[name]
	if !ok {
		s.mu.Unlock()
		return
	}
	booted := st.Powered && st.OSRunning && !(m.state.Powered && m.state.OSRunning)
	if st.RuntimeVersion == "" {
		st.RuntimeVersion = m.state.RuntimeVersion
	}
	m.state = st
	m.wipeUsersLocked(st.Installs)
	if booted {
		m.deleted = false
		m.boot = newBoot(st.RuntimeVersion)
	}
	node := m.NodeName
	s.mu.Unlock()
	s.nodeQ.Add(node)
}

// Machines returns the machines in input order.
func (s *Sim) Machines() []Machine {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Machine, 0, len(s.order))
	for _, n := range s.order {
		out = append(out, s.machines[n].Machine)
	}
	return out
}

// Nodes returns the node names in input order.
func (s *Sim) Nodes() []string {
	ms := s.Machines()
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.NodeName
	}
	return out
}

// NodeName returns the node name of BMM name ("" when unknown).
func (s *Sim) NodeName(name string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if m, ok := s.machines[name]; ok {
		return m.NodeName
	}
	return ""
}

// State returns the last state given for BMM name.
func (s *Sim) State(name string) (MachineState, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.machines[name]
	if !ok {
		return MachineState{}, false
	}
	return m.state, true
}

// Faults returns the Kubernetes-side faults active on BMM name, sorted.
func (s *Sim) Faults(name string) []faults.Kind {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.machines[name]
	if !ok {
		return nil
	}
	var out []faults.Kind
	for k, on := range m.faults {
		if on {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// snapshot is a copy of a machine's mutable fields taken under the lock.
type snapshot struct {
	Machine
	state    MachineState
	faults   map[faults.Kind]bool
	deleted  bool
	labels   map[string]string
	cordoned bool
	boot     bootInfo
}

func (s *Sim) snapshotByNode(node string) (snapshot, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.byNode[node]
	if !ok {
		return snapshot{}, false
	}
	f := make(map[faults.Kind]bool, len(m.faults))
	for k, v := range m.faults {
		f[k] = v
	}
	l := make(map[string]string, len(m.labels))
	for k, v := range m.labels {
		l[k] = v
	}
	return snapshot{Machine: m.Machine, state: m.state, faults: f, deleted: m.deleted, labels: l, cordoned: m.cordoned, boot: m.boot}, true
}

// ours reports whether node belongs to one of this simulator's machines.
func (s *Sim) ours(node string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.byNode[node]
	return ok
}

// podOurs reports whether p runs on one of our nodes or is one of our
// tenant pods (possibly Pending).
func (s *Sim) podOurs(p *corev1.Pod) bool {
	return p.Namespace == s.opts.Namespace || (p.Spec.NodeName != "" && s.ours(p.Spec.NodeName))
}

// hasFault reports whether kind is active on the machine of node.
func (s *Sim) hasFault(node string, kind faults.Kind) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.byNode[node]
	return ok && m.faults[kind]
}

// emitFor emits an event attributed to the machine of node (if known).
func (s *Sim) emitFor(kind, node string, detail map[string]any) {
	s.mu.Lock()
	m, ok := s.byNode[node]
	var bmm, rack string
	if ok {
		bmm, rack = m.Name, m.Rack
	}
	s.mu.Unlock()
	if detail == nil {
		detail = map[string]any{}
	}
	detail["node"] = node
	s.sink.Emit(kind, bmm, rack, detail)
}
