package upgradeplan

import (
	"fmt"
	"sort"
	"strings"

	"github.com/rackroll/rackroll/internal/model"
)

// phaseOf is the upgrade phase that reimages b: the control plane (active
// KCPs and the spare), management, or compute.
func phaseOf(b model.BMM) model.Role {
	switch {
	case b.HasRole(model.RoleKCP), b.HasRole(model.RoleKCPSpare):
		return model.RoleKCP
	case b.HasRole(model.RoleManagement):
		return model.RoleManagement
	}
	return model.RoleCompute
}

// InstallVersion is the runtime a reimage, replace, remediation or
// failover installs on b, with the roles it will have (a failed KCP
// reprovisioned as management is in the management phase). While an upgrade to target is in progress or
// left servers behind (the ledger's UpgradeTarget), it is the version the
// cluster converges to for b's phase: target once any in-service server
// of that phase runs it (the phase has started), else the cluster's
// version. Without an upgrade it is the server's own version (a cancelled
// upgrade leaves servers where they are), except for the spare, which
// joins on the control plane's version: the retired spare keeps the old
// one by design.
func InstallVersion(c model.Cluster, target string, b model.BMM) string {
	if target != "" && target != c.RuntimeVersion {
		phase := phaseOf(b)
		for _, o := range c.BMMs {
			if o.RuntimeVersion == target && phaseOf(o) == phase && OutOfService(o) == "" {
				return target
			}
		}
		return c.RuntimeVersion
	}
	if b.RuntimeVersion == "" || b.HasRole(model.RoleKCPSpare) {
		return c.RuntimeVersion
	}
	return b.RuntimeVersion
}

// Versions lists the distinct runtimes the in-service servers run, in
// version order. Servers with none recorded and deprovisioned ones
// (Available: the idle spare, retired on the old version by design) run
// nothing and are left out.
func Versions(c model.Cluster) []string {
	seen := map[string]bool{}
	var out []string
	for _, b := range c.BMMs {
		if b.RuntimeVersion != "" && b.DetailedStatus != model.BMMAvailable && OutOfService(b) == "" && !seen[b.RuntimeVersion] {
			seen[b.RuntimeVersion] = true
			out = append(out, b.RuntimeVersion)
		}
	}
	sortVersions(out)
	return out
}

// RuntimeLabel is how a cluster's runtime is shown: its version, or
// "mixed (a, b)" when the in-service servers run more than one.
func RuntimeLabel(c model.Cluster) string {
	vs := Versions(c)
	if len(vs) <= 1 {
		return c.RuntimeVersion
	}
	return fmt.Sprintf("mixed (%s)", strings.Join(vs, ", "))
}

// sortVersions orders versions by their numbers (4.10.0 after 4.9.0);
// one that does not parse sorts by its text.
func sortVersions(vs []string) {
	sort.Slice(vs, func(i, j int) bool {
		a, errA := model.ParseVersion(vs[i])
		b, errB := model.ParseVersion(vs[j])
		if errA != nil || errB != nil {
			return vs[i] < vs[j]
		}
		return a.Compare(b) < 0
	})
}
