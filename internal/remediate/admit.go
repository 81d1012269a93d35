package remediate

import (
	"fmt"
	"strings"

	"github.com/rackroll/rackroll/internal/lease"
	"github.com/rackroll/rackroll/internal/model"
)

// Active is a remediation in flight.
type Active struct {
	BMM  string     `json:"bmm"`
	Role model.Role `json:"role"`
}

// Situation is what admission weighs besides the candidate.
type Situation struct {
	Cluster model.Cluster
	Active  []Active
	// Leases are the ledger's leases; a remediation's own lease is on a BMM
	// that is also in Active.
	Leases []lease.Lease
	// UnhealthyControlPlane comes from UnhealthyControlPlane.
	UnhealthyControlPlane []string
	// MaxConcurrentCompute is the ledger's RemediationSpec.MaxConcurrentCompute;
	// below 1 counts as 1.
	MaxConcurrentCompute int
}

// Decision says whether to start a remediation now, and why (not).
type Decision struct {
	Start  bool   `json:"start"`
	Reason string `json:"reason"`
}

// Verdict is the decision on one due BMM.
type Verdict struct {
	Due      Due      `json:"due"`
	Decision Decision `json:"decision"`
}

// Admit decides whether d may start now. A refusal is not final: the due
// stays due and the monitor asks again next round. The rules, first refusal
// wins: the BMM is in the ledger; is not marked Unhealthy (only Replace
// clears that); is not already being remediated; is under nobody else's
// lease; a control-plane BMM is refused while more than one control-plane
// node is unhealthy (etcd may be degraded: an operator must act) and while
// another control-plane remediation or KCP disruption is in flight (one at a
// time keeps quorum); a compute BMM waits while MaxConcurrentCompute compute
// remediations run. Management servers have no cap (docs/behaviour.md#remediation sets none).
func Admit(d Due, s Situation) Decision {
	b, ok := s.Cluster.BMM(d.BMM)
	if !ok {
		return refuse("bmm %s is not in cluster %s: nothing to remediate", d.BMM, s.Cluster.Name)
	}
	role := RoleOf(*b)
	if b.MarkedUnhealthy() {
		return refuse("bmm %s is already marked Unhealthy: remediation gave up on it; a BMM Replace action returns it to service", d.BMM)
	}
	for _, a := range s.Active {
		if a.BMM == d.BMM {
			return refuse("bmm %s is already being remediated", d.BMM)
		}
	}
	for _, l := range s.Leases {
		if l.BMM == d.BMM {
			return refuse("bmm %s is held by %s (%s): remediation waits until it is released", d.BMM, l.Holder, l.Operation)
		}
	}
	if role.IsControlPlane() {
		if n := len(s.UnhealthyControlPlane); n > 1 {
			return refuse("%d control-plane nodes are unhealthy (%s): etcd may be degraded or a replacement may be in progress, so %s (%s) is not remediated automatically; an operator must act: check etcd health and the failed nodes",
				n, strings.Join(s.UnhealthyControlPlane, ", "), d.BMM, role)
		}
		for _, a := range s.Active {
			if a.Role.IsControlPlane() {
				return refuse("control-plane bmm %s is already being remediated: one control-plane remediation at a time keeps etcd quorum; %s waits", a.BMM, d.BMM)
			}
		}
		for _, l := range s.Leases {
			if l.Disruptive && l.ControlPl {
				return refuse("KCP server %s is being disrupted by %s (%s): remediating %s too could lose etcd quorum; it waits", l.BMM, l.Holder, l.Operation, d.BMM)
			}
		}
	}
	if role == model.RoleCompute {
		limit := max(s.MaxConcurrentCompute, 1)
		n := 0
		for _, a := range s.Active {
			if a.Role == model.RoleCompute {
				n++
			}
		}
		if n >= limit {
			return refuse("compute remediations in flight: %d of maxConcurrentCompute %d; %s waits", n, limit, d.BMM)
		}
	}
	return Decision{Start: true, Reason: fmt.Sprintf("%s: starting remediation", d)}
}

// AdmitAll decides on every due in order, counting each one it starts as
// active for the ones after it, so a round never exceeds a limit.
func AdmitAll(due []Due, s Situation) []Verdict {
	s.Active = append([]Active(nil), s.Active...)
	out := make([]Verdict, 0, len(due))
	for _, d := range due {
		dec := Admit(d, s)
		if dec.Start {
			role := d.Role
			if b, ok := s.Cluster.BMM(d.BMM); ok {
				role = RoleOf(*b)
			}
			s.Active = append(s.Active, Active{BMM: d.BMM, Role: role})
		}
		out = append(out, Verdict{Due: d, Decision: dec})
	}
	return out
}

func refuse(format string, args ...any) Decision {
	return Decision{Reason: fmt.Sprintf(format, args...)}
}
