package remediate

import (
	"strings"
	"time"

	"github.com/rackroll/rackroll/internal/model"
)

// t0 is an arbitrary fixed instant; tests never read the clock.
var t0 = time.Date(2025, 7, 21, 12, 0, 0, 0, time.UTC)

// cluster builds a ledger of healthy, provisioned BMMs from entries written
// "rack1-m1:kcp" or "rack1-m2:management/a" (with its management group). A
// trailing "!" marks the BMM Unhealthy, "?" makes its node Unknown and "~"
// deprovisions it (Available, no node: an idle spare).
func cluster(entries ...string) model.Cluster {
	c := model.Cluster{Name: "site-a", DetailedStatus: model.ClusterRunning}
	for _, e := range entries {
		b := model.BMM{ReadyState: model.ReadyTrue, DetailedStatus: model.BMMProvisioned}
		switch {
		case strings.HasSuffix(e, "!"):
			b.DetailedStatusMessage = model.UnhealthyMessage
		case strings.HasSuffix(e, "?"):
			b.ReadyState = model.ReadyUnknown
		case strings.HasSuffix(e, "~"):
			b.DetailedStatus, b.ReadyState = model.BMMAvailable, ""
		}
		e = strings.TrimRight(e, "!?~")
		name, role, _ := strings.Cut(e, ":")
		role, b.ManagementGroup, _ = strings.Cut(role, "/")
		b.Name, b.NodeName = name, name
		b.Rack, _, _ = strings.Cut(name, "-")
		b.Roles = []model.Role{model.Role(role)}
		c.BMMs = append(c.BMMs, b)
	}
	return c
}

// running is a healthy observation of a running node.
func running(bmm string, role model.Role) Observation {
	return Observation{BMM: bmm, Role: role, Ready: model.ReadyTrue, Exists: true}
}

func readOnly(bmm string, role model.Role) Observation {
	o := running(bmm, role)
	o.ReadOnlyRootFS = true
	return o
}

func unknown(bmm string, role model.Role) Observation {
	o := running(bmm, role)
	o.Ready = model.ReadyUnknown
	return o
}

func provisioning(bmm string, role model.Role) Observation {
	return Observation{BMM: bmm, Role: role, Provisioning: true}
}
