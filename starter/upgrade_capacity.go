package main

import (
	"context"
	"strings"
	"time"

	"github.com/rackroll/rackroll/activities/kube"
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/temporalerr"
	"github.com/rackroll/rackroll/internal/upgradeplan"
)

// firstBatches are the nodes of each compute rack's first batch as the
// upgrade drains it: the canary's first wave in the canary's rack, else
// the rack's first wave (maxUnavailable servers).
func firstBatches(st api.ClusterState, p upgradeplan.Plan) (units []string, nodes [][]string) {
	nodeOf := map[string]string{}
	for _, b := range st.Cluster.BMMs {
		nodeOf[b.Name] = b.NodeName
	}
	for _, r := range p.Racks {
		if p.Canary != nil && p.Canary.Rack == r.Name {
			r, _ = p.Canary.Split(r)
		}
		var ns []string
		for _, s := range r.FirstWave() {
			if n := nodeOf[s]; n != "" {
				ns = append(ns, n)
			}
		}
		if len(ns) > 0 {
			units, nodes = append(units, r.Name), append(nodes, ns)
		}
	}
	return units, nodes
}

// planCapacity judges each rack's first batch with the guard's own check
// (kube.CheckCapacity), from this machine, on the cluster as it is now:
// each batch alone, before any earlier rack moved its pods. kubeconfig ""
// is the site's (the ledger's kubeconfig path, or in the worker's pod
// the in-cluster account); a check that cannot read the cluster says why.
func planCapacity(ctx context.Context, st api.ClusterState, p upgradeplan.Plan, kubeconfig string) []api.CapacityCheck {
	units, nodes := firstBatches(st, p)
	if len(units) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	src, why := capacitySource(st.Kubeconfig, kubeconfig)
	out := make([]api.CapacityCheck, len(units))
	for i, u := range units {
		c := api.CapacityCheck{Unit: u, NotChecked: true, Message: u + ": capacity not checked from this machine: " + why}
		if src != nil {
			r, err := kube.New(src, kube.Options{}).CheckCapacity(ctx, kube.CapacityInput{Nodes: nodes[i]})
			if err == nil {
				c = api.CapacityCheck{Unit: u, Fits: r.Fits(), Message: r.Describe(u), Pending: r.Pending}
			} else {
				c.Message = u + ": capacity not checked from this machine: " + temporalerr.Message(err)
			}
		}
		out[i] = c
	}
	return out
}

// capacitySource is where the plan reads the cluster: --kubeconfig, else
// the site's kubeconfig as the ledger records it.
func capacitySource(site, flag string) (kube.ClientSource, string) {
	switch {
	case flag != "":
		return kube.Kubeconfig(flag), ""
	case site == api.KubeconfigInCluster:
		return kube.InCluster(), ""
	case strings.HasPrefix(site, "secret:"):
		return nil, "the site's kubeconfig is the Secret " + strings.TrimPrefix(site, "secret:") + ", which the worker reads; pass --kubeconfig"
	case site != "":
		return kube.Kubeconfig(site), ""
	}
	return kube.Default(), ""
}

// capacityNotes are the plan's lines about capacity, one per rack.
func capacityNotes(checks []api.CapacityCheck) []string {
	var out []string
	for _, c := range checks {
		out = append(out, "Capacity "+c.Verdict()+": "+c.Message)
	}
	return out
}
