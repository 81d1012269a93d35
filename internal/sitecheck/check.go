package sitecheck

import (
	"context"
	"sync"

	"github.com/rackroll/rackroll/internal/model"
	"k8s.io/client-go/kubernetes"
)

// BMCProber probes one server's BMC read-only and says what it found.
type BMCProber func(ctx context.Context, s model.ServerSpec) []Item

// Input is what Run checks with.
type Input struct {
	Inventory *model.Inventory
	// Kube is the site's API; nil when the kubeconfig could not be loaded
	// (KubeErr says why).
	Kube      kubernetes.Interface
	KubeErr   error
	VersionOf VersionOf
	ProbeBMC  BMCProber
	// Parallel bounds the BMCs probed at once (default 8): a site's BMCs
	// are slow, one at a time takes minutes.
	Parallel int
}

// Run probes the site and reports every finding; it changes nothing.
func Run(ctx context.Context, in Input) Report {
	inv := in.Inventory
	rep := Report{Cluster: inv.Cluster}
	servers := inv.Servers()
	rep.BMMs = make([]Row, len(servers))
	for i, ref := range servers {
		rep.BMMs[i] = Row{BMM: ref.Server.Name, Node: model.NodeNameOf(ref.Server)}
	}
	par := in.Parallel
	if par <= 0 {
		par = 8
	}
	sem := make(chan struct{}, par)
	var wg sync.WaitGroup
	for i, ref := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			rep.BMMs[i].Items = in.ProbeBMC(ctx, ref.Server)
		}()
	}
	wg.Wait()
	if in.Kube == nil {
		msg := "no kubeconfig"
		if in.KubeErr != nil {
			msg = in.KubeErr.Error()
		}
		rep.Kubernetes = []Item{Blocker("API reachable", msg, "set kubernetes.kubeconfig to a kubeconfig for the site")}
		return rep
	}
	rep.Kubernetes = checkKube(ctx, in.Kube, rep.BMMs, in.VersionOf, inv.RuntimeVersion)
	return rep
}
