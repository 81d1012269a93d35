package kubesim

import (
	"sync"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
)

// With a thousand PDBs, matching every pod event against every PDB
// selector dominated the simulator's CPU. PDBs are therefore indexed by
// the "app" value they select (namespace/value, or namespace/* when they
// do not select on app), pods by their app label, and parsed selectors
// are cached per PDB generation.
const pdbIndexApp = "app"

var pdbIndexers = cache.Indexers{
	pdbIndexApp: func(obj any) ([]string, error) {
		pdb, ok := obj.(*policyv1.PodDisruptionBudget)
		if !ok {
			return nil, nil
		}
		if sel := pdb.Spec.Selector; sel != nil {
			if v, ok := sel.MatchLabels[labelApp]; ok {
				return []string{pdb.Namespace + "/" + v}, nil
			}
		}
		return []string{pdb.Namespace + "/*"}, nil
	},
}

// selectorCache memoises parsed PDB selectors.
type selectorCache struct {
	mu sync.Mutex
	m  map[types.UID]cachedSelector
}

type cachedSelector struct {
	generation int64
	sel        labels.Selector
}

// selector returns pdb's parsed selector; an invalid one selects nothing,
// as for the disruption controller.
func (c *selectorCache) selector(pdb *policyv1.PodDisruptionBudget) labels.Selector {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[pdb.UID]; ok && e.generation == pdb.Generation {
		return e.sel
	}
	sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
	if err != nil {
		sel = labels.Nothing()
	}
	if c.m == nil {
		c.m = map[types.UID]cachedSelector{}
	}
	c.m[pdb.UID] = cachedSelector{pdb.Generation, sel}
	return sel
}

// forget drops a deleted PDB's entry.
func (c *selectorCache) forget(uid types.UID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, uid)
}

// podsFor returns the pods pdb selects.
func (s *Sim) podsFor(pdb *policyv1.PodDisruptionBudget) ([]*corev1.Pod, error) {
	sel := s.selectors.selector(pdb)
	var v string
	ok := false
	if pdb.Spec.Selector != nil {
		v, ok = pdb.Spec.Selector.MatchLabels[labelApp]
	}
	if ok {
		var out []*corev1.Pod
		for _, p := range s.indexed(indexApp, pdb.Namespace+"/"+v) {
			if sel.Matches(labels.Set(p.Labels)) {
				out = append(out, p)
			}
		}
		return out, nil
	}
	return s.pods.Pods(pdb.Namespace).List(sel)
}

// pdbsFor returns the PDBs selecting p.
func (s *Sim) pdbsFor(p *corev1.Pod) []*policyv1.PodDisruptionBudget {
	keys := []string{p.Namespace + "/*"}
	if v, ok := p.Labels[labelApp]; ok {
		keys = append(keys, p.Namespace+"/"+v)
	}
	var out []*policyv1.PodDisruptionBudget
	set := labels.Set(p.Labels)
	for _, k := range keys {
		objs, err := s.pdbIdx.ByIndex(pdbIndexApp, k)
		if err != nil {
			continue
		}
		for _, o := range objs {
			pdb := o.(*policyv1.PodDisruptionBudget)
			if sel := s.selectors.selector(pdb); !sel.Empty() && sel.Matches(set) {
				out = append(out, pdb)
			}
		}
	}
	return out
}
