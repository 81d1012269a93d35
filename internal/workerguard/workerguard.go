// Package workerguard decides whether a drain may evict rackroll's own
// worker pods (docs/install.md#where-the-workers-run). It is
// pure: the Kubernetes activity reads the worker pods, this package judges.
package workerguard

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Pod is a rackroll worker pod as the drain sees it.
type Pod struct {
	Namespace, Name, Node string
	// Ready: its Ready condition is True and it is not terminating — what a
	// PodDisruptionBudget counts as healthy.
	Ready bool
}

func (p Pod) key() string { return p.Namespace + "/" + p.Name }

// Verdict is what a drain of one node may do with the worker pods on it.
type Verdict struct {
	// Keep are the node's worker pods the drain must leave for now: at most
	// one, the last Ready worker.
	Keep []Pod
	// Reason names the kept pod, its node and why; "" when Keep is empty.
	Reason string
}

// Judge is the rule: a drain of node never evicts the last Ready worker.
// Workers Ready on any other node — cordoned ones too, since their own
// drain is held to this same rule and the PodDisruptionBudget lets one
// eviction through at a time — are enough. Otherwise one Ready worker of
// the node is kept (the first by namespace/name) and the others may go: the
// node is cordoned, so their replacements start elsewhere, and once one of
// them is Ready the kept pod may go too. selector only names the workers in
// the reason.
func Judge(pods []Pod, node, selector string) Verdict {
	var mine, notReady []Pod
	for _, p := range pods {
		switch {
		case p.Node != node && p.Ready:
			return Verdict{}
		case p.Node == node && p.Ready:
			mine = append(mine, p)
		default:
			notReady = append(notReady, p)
		}
	}
	if len(mine) == 0 {
		return Verdict{} // nothing Ready here to lose
	}
	slices.SortFunc(mine, func(a, b Pod) int { return cmp.Compare(a.key(), b.key()) })
	keep := mine[0]
	why := fmt.Sprintf("pod %s on node %s is the last Ready rackroll worker (pods %s): evicting it would leave no worker to run rackroll's workflows",
		keep.key(), node, selector)
	if len(notReady) > 0 {
		var others []string
		for _, p := range notReady {
			where := p.Node
			if where == "" {
				where = "no node"
			}
			others = append(others, p.key()+" on "+where)
		}
		slices.Sort(others)
		why += "; not Ready: " + strings.Join(others, ", ")
	}
	return Verdict{Keep: []Pod{keep}, Reason: why}
}
