// Package capacity decides, before a batch of servers is drained, whether
// the pods the drain will evict can land on the nodes that stay up
// (docs/behaviour-upgrade.md#guards). It is pure: the Kubernetes activity reads the
// nodes and pods, this package judges — with the scheduler's own helpers
// (k8s.io/component-helpers) for node selectors, required node affinity
// and taints, so the guard and the scheduler read a pod alike.
package capacity

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// Resources are CPU (millicores) and memory (bytes).
type Resources struct {
	MilliCPU int64 `json:"milliCPU"`
	Memory   int64 `json:"memory"`
}

func (r Resources) add(o Resources) Resources {
	return Resources{r.MilliCPU + o.MilliCPU, r.Memory + o.Memory}
}
func (r Resources) sub(o Resources) Resources {
	return Resources{r.MilliCPU - o.MilliCPU, r.Memory - o.Memory}
}
func (r Resources) fits(in Resources) bool { return r.MilliCPU <= in.MilliCPU && r.Memory <= in.Memory }

// String is "12.5 CPU, 48.0 GiB".
func (r Resources) String() string {
	return fmt.Sprintf("%.1f CPU, %.1f GiB", float64(r.MilliCPU)/1000, float64(r.Memory)/(1<<30))
}

// Node is a node as the scheduler sees it.
type Node struct {
	Name        string
	Labels      map[string]string
	Allocatable Resources
	// Schedulable: Ready and not cordoned.
	Schedulable bool
	Taints      []corev1.Taint
}

// Pod is a pod placed on a node (Node "" for one not placed).
type Pod struct {
	Name     string // namespace/name
	Node     string
	Requests Resources
	// What the scheduler filters nodes by (placement.go).
	Tolerations  []corev1.Toleration
	NodeSelector map[string]string
	Affinity     *corev1.NodeSelector // requiredDuringSchedulingIgnoredDuringExecution
	// Kinds a drain does not move: DaemonSet pods and mirror pods stay
	// with their node, tenant VMs are shut down and started again on it,
	// finished pods hold nothing.
	DaemonSet, Mirror, VM, Finished bool
	// Bare: no controller. The drain deletes it and nothing recreates it
	// anywhere (kubectl drain --force; docs/behaviour-upgrade.md#guards).
	Bare bool
	// LocalVolume names a volume bound to storage of its node only (a
	// local PersistentVolume): no other node can run the pod.
	LocalVolume string
}

func (p Pod) evicted() bool { return !p.DaemonSet && !p.Mirror && !p.VM && !p.Finished }

// cannotMove is why p can run on no other node whatever the room ("" when
// it can).
func (p Pod) cannotMove() string {
	switch {
	case p.Bare:
		return "no controller: the drain deletes it and nothing recreates it"
	case p.LocalVolume != "":
		return "its volume " + p.LocalVolume + " is local storage of its node"
	}
	return ""
}

// Report is the guard's judgement of one batch.
type Report struct {
	Batch []string `json:"batch"`
	// Demand is what the batch's evictable pods request; Free what the
	// schedulable nodes that stay up can still take.
	Demand Resources `json:"demand"`
	Free   Resources `json:"free"`
	// Pending are the pods that would find no node (placed largest first
	// on the first node that takes them), Shortfall what they request.
	Pending   []string  `json:"pending,omitempty"`
	Shortfall Resources `json:"shortfall"`
	Evicted   int       `json:"evicted"`
	// Reasons say why the Pending pods find no node, pods of one reason
	// together ("tenant/a-0, tenant/a-1: nodeSelector rack=rack1 matches
	// no node that stays up"); room alone is the Shortfall.
	Reasons []string `json:"reasons,omitempty"`
	// Unmovable are pods the drain removes that no other node can run
	// (bare pods, local storage), "namespace/name: why".
	Unmovable []string `json:"unmovable,omitempty"`
}

// Fits is true when every evicted pod finds a node and none is lost.
func (r Report) Fits() bool { return len(r.Pending) == 0 && len(r.Unmovable) == 0 }

// Describe is the report in a sentence, naming the unit.
func (r Report) Describe(unit string) string {
	if r.Fits() {
		return fmt.Sprintf("%s: its %d evicted pods request %s; the nodes that stay up can take %s", unit, r.Evicted, r.Demand, r.Free)
	}
	msg := fmt.Sprintf("%s: its %d evicted pods request %s, the nodes that stay up can take %s", unit, r.Evicted, r.Demand, r.Free)
	switch {
	case len(r.Pending) > 0 && r.Shortfall != (Resources{}):
		msg += fmt.Sprintf(": short by %s; %d pods would be left Pending: %s", r.Shortfall, len(r.Pending), strings.Join(r.Pending, ", "))
	case len(r.Pending) > 0:
		msg += fmt.Sprintf("; %d pods would be left Pending: %s", len(r.Pending), strings.Join(r.Pending, ", "))
	}
	if len(r.Reasons) > 0 {
		msg += " (" + strings.Join(r.Reasons, "; ") + ")"
	}
	if len(r.Unmovable) > 0 {
		msg += fmt.Sprintf("; %d pods cannot move: %s", len(r.Unmovable), strings.Join(r.Unmovable, "; "))
	}
	return msg
}

// Check judges draining batch (node names) with the cluster's nodes and
// pods as they are now.
func Check(batch []string, nodes []Node, pods []Pod) Report {
	r := Report{Batch: batch}
	free := map[string]Resources{}
	for _, n := range nodes {
		if n.Schedulable && !slices.Contains(batch, n.Name) {
			free[n.Name] = n.Allocatable
		}
	}
	var moving []Pod
	for _, p := range pods {
		if _, ok := free[p.Node]; ok && !p.Finished {
			free[p.Node] = free[p.Node].sub(p.Requests)
		}
		if !slices.Contains(batch, p.Node) || !p.evicted() {
			continue
		}
		if why := p.cannotMove(); why != "" {
			r.Unmovable = append(r.Unmovable, p.Name+": "+why)
			continue
		}
		moving = append(moving, p)
		r.Demand = r.Demand.add(p.Requests)
	}
	slices.Sort(r.Unmovable)
	r.Evicted = len(moving)
	receivers := make([]receiver, 0, len(free))
	for _, n := range nodes {
		if _, ok := free[n.Name]; ok {
			receivers = append(receivers, newReceiver(n))
		}
	}
	slices.SortFunc(receivers, func(a, b receiver) int { return cmp.Compare(a.Name, b.Name) })
	fits := make([]filter, len(moving))
	for i, p := range moving {
		fits[i] = newFilter(p)
	}
	for _, n := range receivers {
		// Room counts where some evicted pod may land; no evicted pod:
		// where an ordinary pod may.
		if slices.ContainsFunc(fits, func(f filter) bool { return f.allows(n) == "" }) ||
			len(moving) == 0 && newFilter(Pod{}).allows(n) == "" {
			f := free[n.Name]
			r.Free = r.Free.add(Resources{max(f.MilliCPU, 0), max(f.Memory, 0)})
		}
	}
	order := make([]int, len(moving))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int {
		a, b := moving[i], moving[j]
		return cmp.Or(cmp.Compare(b.Requests.MilliCPU, a.Requests.MilliCPU), cmp.Compare(b.Requests.Memory, a.Requests.Memory), cmp.Compare(a.Name, b.Name))
	})
	why := map[string][]string{}
	for _, i := range order {
		p := moving[i]
		if n, ok := place(p, fits[i], receivers, free); ok {
			free[n] = free[n].sub(p.Requests)
			continue
		}
		r.Pending = append(r.Pending, p.Name)
		r.Shortfall = r.Shortfall.add(p.Requests)
		if reason := fits[i].none(receivers); reason != "" {
			why[reason] = append(why[reason], p.Name)
		}
	}
	for reason, names := range why {
		r.Reasons = append(r.Reasons, strings.Join(names, ", ")+": "+reason)
	}
	slices.Sort(r.Reasons)
	return r
}

// place is the first receiver (in name order) whose free resources hold p
// and that p's filter allows.
func place(p Pod, f filter, receivers []receiver, free map[string]Resources) (string, bool) {
	for _, n := range receivers {
		if p.Requests.fits(free[n.Name]) && f.allows(n) == "" {
			return n.Name, true
		}
	}
	return "", false
}
