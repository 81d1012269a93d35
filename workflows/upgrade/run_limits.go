package upgrade

import (
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/upgradeplan"
	"github.com/rackroll/rackroll/workflows/kernel"
)

// The run limits of the upgrade's children, derived from the table the
// upgrade read when it started (api.ServerInput.Limits). A run limit is a
// backstop: a child that reaches it is killed without releasing its lease
// or saying why, so it is the sum of its steps each at its own limit, never
// less — a step runs out of its own limit, with its message, long before.

// serverCalls counts the calls that answer at once around a server's
// steps: the ledger's lease and reads, cordon, the gate, the node reads,
// the firmware inventory's read, uncordon, the VMs' start and the records.
const serverCalls = 11

// limitsOf is the table a server's waits are bounded by: the one its
// upgrade read, or the defaults for a run started before it carried one.
func limitsOf(in api.ServerInput) model.Timeouts {
	if in.Limits == nil {
		return model.DefaultTimeouts()
	}
	return in.Limits.OrDefaults()
}

// serverRunLimit is the longest a server's upgrade takes with each step at
// its limit: the wait for a remediation that holds it, the drain and the
// VM shutdown (the upgrade's overrides), the firmware step, the reimage
// with its eject and etcd join, and the calls around them.
func serverRunLimit(in api.ServerInput) time.Duration {
	t := limitsOf(in)
	drain, vms := orDur(in.DrainTimeout, t.Drain.Std()), orDur(in.VMShutdownTimeout, t.VMShutdown.Std())
	return t.RemediationWait.Std() + drain + vms + t.Firmware.Std() + kernel.ReimageBound(t, t.Reimage.Std()) + serverCalls*kernel.CallBound(t)
}

// rackRunLimit is the longest a rack of n servers takes, at most parallel
// at a time: a server starts as soon as one ends, so with each at most S
// (serverRunLimit) the k-th starts by ⌊k/parallel⌋·S and the last ends by
// ⌈n/parallel⌉·S. Each server after the first wave may be preceded by a
// capacity check, and the first wave by one.
func rackRunLimit(n, parallel int, in api.ServerInput) time.Duration {
	n = max(n, 1)
	parallel = min(max(parallel, 1), n)
	waves := (n + parallel - 1) / parallel
	checks := n - parallel + 1
	return time.Duration(waves)*serverRunLimit(in) + time.Duration(checks)*kernel.CallBound(limitsOf(in))
}

// legacyRunLimit is the run limit of every child in the histories recorded
// before the table bounded them (kernel.TableBounds).
const legacyRunLimit = 24 * time.Hour

// runLimit is the run limit of a child given the bound derived for it: 0
// means the run started before the table bounded its children.
func runLimit(derived time.Duration) time.Duration {
	if derived <= 0 {
		return legacyRunLimit
	}
	return derived
}

// serverRun is a server child's run limit: derived where its upgrade
// carries the table, else 0 (runLimit).
func serverRun(in api.ServerInput) time.Duration {
	if in.Limits == nil {
		return 0
	}
	return serverRunLimit(in)
}

// rackRun is a rack child's run limit, as serverRun.
func rackRun(r upgradeplan.Rack, in api.ServerInput) time.Duration {
	if in.Limits == nil {
		return 0
	}
	return rackRunLimit(len(r.Servers), len(r.FirstWave()), in)
}

func orDur(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}
