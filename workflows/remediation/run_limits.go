package remediation

import (
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/workflows/kernel"
	"go.temporal.io/sdk/workflow"
)

// failoverCalls counts the calls that answer at once around a failover's
// steps: its leases, the ledger's records, the gate, the node reads.
const failoverCalls = 20

// failoverRunLimit is the longest a KCP failover takes with each of its
// steps at its limit (docs/time-limits.md): without a spare, the failed
// KCP's drain (bounded by the reboot clock) and power-off; with one, each
// candidate's provisioning (the spare, then each stand-in it falls back
// to), the failed KCP's reprovision, and the management ladder of each
// candidate that fell (reboot, reprovision, drain, power-off); and the
// calls around them. A backstop: a failover that reaches it is killed
// mid-swap, so it is the sum, never less.
func failoverRunLimit(t model.Timeouts, rem model.RemediationSpec, candidates int) time.Duration {
	t = t.OrDefaults()
	candidates = max(candidates, 1)
	reboot := rem.RebootTimeout.Std()
	provision := kernel.ReimageBound(t, rem.ReprovisionTimeout.Std())
	ladder := reboot + provision + min(t.Drain.Std(), reboot) + t.PowerOff.Std()
	return min(t.Drain.Std(), reboot) + t.PowerOff.Std() + time.Duration(candidates+1)*provision +
		time.Duration(candidates)*ladder + failoverCalls*kernel.CallBound(t)
}

// failoverCandidates counts the servers a failover may provision for the
// control plane: the spares and the management servers.
func failoverCandidates(c model.Cluster) int {
	n := 0
	for _, b := range c.BMMs {
		if b.HasRole(model.RoleKCPSpare) || b.HasRole(model.RoleManagement) {
			n++
		}
	}
	return n
}

// failoverRun is the failover child's run limit: derived from the table
// and the remediation clocks, or none (0) in runs started before the table
// bounded it.
func failoverRun(ctx workflow.Context, cs api.ClusterState) time.Duration {
	if !kernel.TableBounds(ctx) {
		return 0
	}
	return failoverRunLimit(cs.Limits(), cs.Remediation, failoverCandidates(cs.Cluster))
}
