package invariants

import (
	"strconv"
	"strings"
	"time"

	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/model"
)

// remediationStart applies the storm guard to a remediation, with the
// state as the log left it when the remediation started.
func (c *checker) remediationStart(r Remediation) {
	role := r.Role
	if role == "" {
		role = c.st.role[r.BMM]
	}
	if !role.IsControlPlane() {
		return
	}
	if bad := c.st.unhealthyControlPlane(); len(bad) > 1 {
		c.out = append(c.out, Violation{Rule: RuleStormGuard, Time: r.StartedAt, BMM: r.BMM,
			Detail: "remediation of " + string(role) + " " + r.BMM + " started while " + strconv.Itoa(len(bad)) +
				" control-plane nodes were unhealthy (" + strings.Join(bad, ", ") + "): the storm guard leaves that to an operator"})
	}
}

// ladder checks that r ran each step once, and that the BMM saw at most one
// reset (the reboot) and one reimage-start (the reprovision) while r ran.
// A KCP that the failover (r's last step) relabels management starts
// afresh there: the failover provisions it once, and if that fails the
// management ladder takes over (docs/behaviour.md#remediation) with its own reboot and
// reprovision — so after the relabel, one reset and two reimage-starts.
func (c *checker) ladder(r Remediation, evs []events.Event) {
	seen := map[string]bool{}
	for _, s := range r.Steps {
		if seen[s] {
			c.out = append(c.out, Violation{Rule: RuleLadderStepOnce, Time: r.StartedAt, BMM: r.BMM,
				Detail: "remediation of " + r.BMM + " ran step " + s + " more than once (steps: " + strings.Join(r.Steps, ", ") + ")"})
		}
		seen[s] = true
	}
	counts := map[string]int{}
	limit := map[string]int{events.Reset: 1, events.ReimageStart: 1}
	relabelled := false
	for _, e := range evs {
		if e.BMM != r.BMM || e.Time.Before(r.StartedAt) || (r.FinishedAt != nil && e.Time.After(*r.FinishedAt)) {
			continue
		}
		if role, ok := roleLabel(e.Detail); e.Kind == events.NodeLabel && ok && role == string(model.RoleManagement) && !relabelled && seen["failover"] {
			relabelled = true
			counts = map[string]int{}
			limit[events.ReimageStart] = 2
			continue
		}
		if e.Kind != events.Reset && e.Kind != events.ReimageStart {
			continue
		}
		counts[e.Kind]++
		if counts[e.Kind] == limit[e.Kind]+1 {
			step := map[string]string{events.Reset: "reboot", events.ReimageStart: "reprovision"}[e.Kind]
			what := "the " + step + " step runs at most once"
			if relabelled {
				what = "after the relabel to management, one provisioning and the management ladder's reboot and reprovision"
			}
			c.out = append(c.out, Violation{Rule: RuleLadderStepOnce, Time: e.Time, BMM: r.BMM,
				Detail: "one " + e.Kind + " too many of " + r.BMM + " during its remediation started " +
					r.StartedAt.UTC().Format(time.RFC3339) + ": " + what})
		}
	}
}
