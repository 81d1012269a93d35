// Package capacity decides, before a batch of servers is drained, whether
// the pods the drain will evict can land on the nodes that stay up
// (docs/behaviour.md#guards). It is pure: the Kubernetes activity reads the
// nodes and pods, this package judges.
package capacity

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
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

// Taint and Toleration are the parts of Kubernetes' that scheduling reads.
type Taint struct{ Key, Value, Effect string }

type Toleration struct{ Key, Operator, Value, Effect string }

// Node is a node as the scheduler sees it.
type Node struct {
	Name        string
	Allocatable Resources
	// Schedulable: Ready and not cordoned.
	Schedulable bool
	Taints      []Taint
}

// Pod is a pod placed on a node (Node "" for one not placed).
type Pod struct {
	Name        string // namespace/name
	Node        string
	Requests    Resources
	Tolerations []Toleration
	// Kinds a drain does not move: DaemonSet pods and mirror pods stay
	// with their node, tenant VMs are shut down and started again on it,
	// finished pods hold nothing.
	DaemonSet, Mirror, VM, Finished bool
}

func (p Pod) evicted() bool { return !p.DaemonSet && !p.Mirror && !p.VM && !p.Finished }

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
}

// Fits is true when every evicted pod finds a node.
func (r Report) Fits() bool { return len(r.Pending) == 0 }

// Describe is the report in a sentence, naming the unit.
func (r Report) Describe(unit string) string {
	if r.Fits() {
		return fmt.Sprintf("%s: its %d evicted pods request %s; the nodes that stay up can take %s", unit, r.Evicted, r.Demand, r.Free)
	}
	return fmt.Sprintf("%s: its %d evicted pods request %s, the nodes that stay up can take %s: short by %s; %d pods would be left Pending: %s",
		unit, r.Evicted, r.Demand, r.Free, r.Shortfall, len(r.Pending), strings.Join(r.Pending, ", "))
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
		if slices.Contains(batch, p.Node) && p.evicted() {
			moving = append(moving, p)
			r.Demand = r.Demand.add(p.Requests)
		}
	}
	r.Evicted = len(moving)
	receivers := make([]Node, 0, len(free))
	for _, n := range nodes {
		if f, ok := free[n.Name]; ok {
			receivers = append(receivers, n)
			// Room counts where some evicted pod may land (its taints
			// tolerated); no evicted pod: where an ordinary pod may.
			if slices.ContainsFunc(moving, func(p Pod) bool { return tolerates(p.Tolerations, n.Taints) }) ||
				len(moving) == 0 && tolerates(nil, n.Taints) {
				r.Free = r.Free.add(Resources{max(f.MilliCPU, 0), max(f.Memory, 0)})
			}
		}
	}
	slices.SortFunc(receivers, func(a, b Node) int { return cmp.Compare(a.Name, b.Name) })
	slices.SortStableFunc(moving, func(a, b Pod) int {
		return cmp.Or(cmp.Compare(b.Requests.MilliCPU, a.Requests.MilliCPU), cmp.Compare(b.Requests.Memory, a.Requests.Memory), cmp.Compare(a.Name, b.Name))
	})
	for _, p := range moving {
		if n, ok := place(p, receivers, free); ok {
			free[n] = free[n].sub(p.Requests)
			continue
		}
		r.Pending = append(r.Pending, p.Name)
		r.Shortfall = r.Shortfall.add(p.Requests)
	}
	return r
}

// place is the first receiver (in name order) whose free resources hold p
// and whose taints p tolerates.
func place(p Pod, receivers []Node, free map[string]Resources) (string, bool) {
	for _, n := range receivers {
		if p.Requests.fits(free[n.Name]) && tolerates(p.Tolerations, n.Taints) {
			return n.Name, true
		}
	}
	return "", false
}

// tolerates: every NoSchedule or NoExecute taint has a toleration
// (PreferNoSchedule only prefers).
func tolerates(ts []Toleration, taints []Taint) bool {
	for _, t := range taints {
		if t.Effect == "PreferNoSchedule" {
			continue
		}
		if !slices.ContainsFunc(ts, func(tol Toleration) bool { return tolerated(tol, t) }) {
			return false
		}
	}
	return true
}

func tolerated(tol Toleration, t Taint) bool {
	if tol.Effect != "" && tol.Effect != t.Effect {
		return false
	}
	if tol.Operator == "Exists" {
		return tol.Key == "" || tol.Key == t.Key
	}
	return tol.Key == t.Key && tol.Value == t.Value
}
