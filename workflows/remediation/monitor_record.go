package remediation

import (
	"fmt"

	"github.com/rackroll/rackroll/activities/kube"
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/remediate"
	"github.com/rackroll/rackroll/internal/temporalerr"
	"github.com/rackroll/rackroll/workflows/kernel"
	"go.temporal.io/sdk/workflow"
)

// recordHealth writes into the ledger what the round observed of each
// node, where it differs from what the ledger says: Ready (True, False,
// Unknown) with since when, and the read-only root filesystem condition.
// Before this (version DefaultVersion) nothing updated readyState after
// registration but an upgrade step, so `cluster show`, the lease
// (lease.MissingKCP) and the upgrade preflight trusted a stale Ready.
func (m *monitor) recordHealth(ctx workflow.Context, c model.Cluster, ns []kube.NodeStatus) {
	if workflow.GetVersion(ctx, changeMonitorRecordsHealth, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return
	}
	for _, p := range healthPatches(c, ns) {
		if err := kernel.LedgerOf(m.in.Cluster).Record(ctx, p); err != nil {
			m.st.LastError = "record the health of " + p.BMM + ": " + temporalerr.Message(err)
		}
	}
}

// healthPatches are the changes between the ledger and the nodes observed
// (ns in the order of c.BMMs, as the round asks). A BMM the ledger shows
// powered off, or whose node does not exist (a deprovisioned spare, a
// machine being reimaged), is left as the workflows acting on it recorded:
// there is no node condition to read.
func healthPatches(c model.Cluster, ns []kube.NodeStatus) []api.BMMPatch {
	var out []api.BMMPatch
	for i, b := range c.BMMs {
		if i >= len(ns) || b.PowerState == model.PowerOff {
			continue
		}
		n := ns[i]
		if !n.Exists || n.Ready == "" {
			continue
		}
		p := api.BMMPatch{BMM: b.Name}
		changed := false
		// Only a change is written: a large site's first round would
		// otherwise write every BMM.
		if n.Ready != b.ReadyState {
			p.ReadyState = api.Str(n.Ready)
			if !n.ReadyTransition.IsZero() {
				t := n.ReadyTransition.UTC()
				p.ReadySince = &t
			}
			changed = true
		}
		if n.ReadOnlyRootFS != b.ReadOnlyRootFS {
			ro := n.ReadOnlyRootFS
			p.ReadOnlyRootFS = &ro
			changed = true
		}
		if changed {
			out = append(out, p)
		}
	}
	return out
}

// provisioningClearsPerRound bounds one round's ledger writes: the first
// round after a large registration clears the rest in the next rounds.
const provisioningClearsPerRound = 200

// endProvisioning clears, in the ledger, the provisioning start of each
// BMM whose node this round saw Ready (remediate.ProvisioningOver): from
// then on a node that is not Ready is a sick one, not one still
// provisioning. Histories before the change (DefaultVersion) wrote nothing.
func (m *monitor) endProvisioning(ctx workflow.Context, c model.Cluster, obs []remediate.Observation) {
	over := remediate.ProvisioningOver(c, obs)
	if len(over) == 0 || workflow.GetVersion(ctx, changeMonitorEndsProvisioning, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return
	}
	over = over[:min(len(over), provisioningClearsPerRound)]
	ps := make([]api.BMMPatch, len(over))
	for i, b := range over {
		ps[i] = api.BMMPatch{BMM: b, ProvisioningOver: true}
	}
	if err := kernel.LedgerOf(m.in.Cluster).RecordMany(ctx, ps); err != nil {
		m.st.LastError = fmt.Sprintf("clear the provisioning start of %d BMMs (%s first): %s", len(over), over[0], temporalerr.Message(err))
	}
}

// restoreLabels hands the ledger the labels it owns as this round saw them
// on each node where they differ from the ledger's (model.NodeLabelDrift):
// a Node its kubelet registered anew — after remediation removed it, or an
// operator did — carries its --node-labels only, perhaps a role moved
// since (Kubernetes docs, "Self-registration of Nodes"). The ledger
// relabels from what it holds when the write arrives, so a round that read
// it before a role moved writes nothing stale. One write a round, only
// when a node differs.
func (m *monitor) restoreLabels(ctx workflow.Context, c model.Cluster, ns []kube.NodeStatus) {
	ps := labelPatches(c, ns)
	if len(ps) == 0 || workflow.GetVersion(ctx, changeMonitorRestoresLabels, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return
	}
	ps = ps[:min(len(ps), provisioningClearsPerRound)]
	if err := kernel.LedgerOf(m.in.Cluster).RecordMany(ctx, ps); err != nil {
		m.st.LastError = fmt.Sprintf("restore the labels of %d nodes (%s first): %s", len(ps), ps[0].BMM, temporalerr.Message(err))
	}
}

// labelPatches are the nodes (ns in the order of c.BMMs) whose labels
// differ from the ledger's, each with the labels it showed.
func labelPatches(c model.Cluster, ns []kube.NodeStatus) []api.BMMPatch {
	var out []api.BMMPatch
	for i, b := range c.BMMs {
		if i >= len(ns) || !ns[i].Exists {
			continue
		}
		if len(model.NodeLabelDrift(model.ManagedNodeLabels(b), ns[i].Labels)) > 0 {
			out = append(out, api.BMMPatch{BMM: b.Name, NodeLabels: model.ManagedOf(ns[i].Labels)})
		}
	}
	return out
}
