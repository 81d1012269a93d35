package upgrade

import (
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/workflows/kernel"
	"go.temporal.io/sdk/workflow"
)

// reestablishKeys starts the cluster's nodes run once the upgrade has
// ended, so the reinstalled servers get the BMM keysets again: the
// operator documents say the keysets "have to be re-established with the
// new software. This process starts once the runtime upgrade completes";
// a server not yet upgraded kept its keys meanwhile (docs/keysets.md).
// The run applies the ledger's whole set to every node (one pod carries
// all of a node's users) and does nothing when no BMM keyset is active.
// One already running is told to apply the set again. It is started, not
// waited for: its outcomes are the keysets', in the ledger.
func (u *upgrade) reestablishKeys(ctx workflow.Context) {
	if workflow.GetVersion(ctx, changeKeysAfterUpgrade, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return
	}
	id := api.KeysetNodesID(u.in.Cluster)
	err := kernel.ReestablishKeys(ctx, u.in.Cluster, "Re-establish the BMM keysets on the nodes of "+u.in.Cluster+" after its runtime upgrade",
		"Every node gets the ledger's BMM keysets again (the reinstalled ones lost their users with their OS), once the upgrade to "+u.in.TargetVersion+" ended; nothing when no BMM keyset is active.")
	if err != nil {
		workflow.GetLogger(ctx).Warn("the BMM keysets were not re-established after the upgrade: run `starter keyset apply`", "cluster", u.in.Cluster, "error", err)
		u.st.KeysNote = "BMM keysets not re-established: " + err.Error() + "; run `starter keyset apply`"
		return
	}
	u.st.KeysNote = "BMM keysets being re-established on every node: workflow " + id
}
