package remediate

import (
	"fmt"
	"slices"
	"time"

	"github.com/rackroll/rackroll/internal/model"
)

// Resume is where role's ladder starts for a BMM whose ledger mark is m
// (nil: never remediated, or replaced since). The recovery steps a
// remediation took within window before now, for the same role, count as
// tried and failed — the server broke again since — so the ladder goes on
// where it stopped and, once every recovery was spent, ends with its
// give-up steps (marked Unhealthy): a server that keeps breaking is never
// reprovisioned in a loop. Past the window the ladder starts afresh; so it
// does for another role (a KCP relabelled management by a failover has
// not tried the management ladder).
func Resume(m *model.LadderMark, role model.Role, now time.Time, window time.Duration) []StepResult {
	if m == nil || m.Role != role || now.Sub(m.At) > window {
		return nil
	}
	recovery := map[Step]bool{}
	rs := rungs(role)
	for _, r := range rs[:max(len(rs)-1, 0)] {
		recovery[r[0]] = true
	}
	var out []StepResult
	for _, s := range m.Steps {
		st := Step(s)
		if !recovery[st] || slices.ContainsFunc(out, func(r StepResult) bool { return r.Step == st }) {
			continue
		}
		out = append(out, StepResult{Step: st, Detail: fmt.Sprintf("%s at %s did not hold: the server failed again within the damping window (%s)",
			st, m.At.UTC().Format(time.RFC3339), window)})
	}
	return out
}

// Mark is the ledger's record of role's ladder after done (carried steps
// included), the last step ending at now: each step once, in order.
func Mark(role model.Role, done []StepResult, now time.Time) model.LadderMark {
	m := model.LadderMark{Role: role, Steps: []string{}, At: now.UTC()}
	for _, r := range done {
		if !slices.Contains(m.Steps, string(r.Step)) {
			m.Steps = append(m.Steps, string(r.Step))
		}
	}
	return m
}
