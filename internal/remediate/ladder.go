package remediate

import (
	"fmt"
	"strings"

	"github.com/rackroll/rackroll/internal/model"
)

// Step is one rung of a remediation ladder.
type Step string

// Steps. Reboot and reprovision try to recover the server; the others give
// up on it.
const (
	Reboot        Step = "reboot"
	Reprovision   Step = "reprovision"
	MarkUnhealthy Step = "mark-unhealthy"
	PowerOff      Step = "power-off"
	Failover      Step = "failover"
)

// StepResult is how one step went.
type StepResult struct {
	Step   Step   `json:"step"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail,omitempty"` // why it failed, for the outcome
}

// rungs are a role's ladder (docs/behaviour.md#remediation): each rung but the last is one
// recovery attempt; the last gives up, its steps in the order to run them.
// The spare takes the KCP ladder: when it is lost, a management server must
// become the new spare, which is what the failover does.
func rungs(role model.Role) [][]Step {
	switch role {
	case model.RoleCompute:
		return [][]Step{{Reprovision}, {MarkUnhealthy, PowerOff}}
	case model.RoleManagement:
		return [][]Step{{Reboot}, {Reprovision}, {MarkUnhealthy}}
	case model.RoleKCP, model.RoleKCPSpare:
		return [][]Step{{Reboot}, {MarkUnhealthy, Failover}}
	}
	return nil
}

// Ladder lists every step of role's ladder in order.
func Ladder(role model.Role) []Step {
	var out []Step
	for _, r := range rungs(role) {
		out = append(out, r...)
	}
	return out
}

// Next says what to do after the results so far: the steps to run next (in
// order; the give-up steps come together), or finished with the outcome. It
// stops at the first successful recovery and never repeats a step: a step
// with a result, failed or not, is done. Results for steps outside the
// ladder are ignored. While not finished, outcome says where the ladder is.
func Next(role model.Role, done []StepResult) (next []Step, finished bool, outcome string) {
	rs := rungs(role)
	if rs == nil {
		return nil, true, fmt.Sprintf("no remediation ladder for role %q", role)
	}
	got := map[Step]StepResult{}
	for _, r := range done {
		if _, dup := got[r.Step]; !dup {
			got[r.Step] = r
		}
	}
	var failed []string // recovery attempts that failed
	for i, rung := range rs {
		var todo []Step
		for _, s := range rung {
			if _, ok := got[s]; !ok {
				todo = append(todo, s)
			}
		}
		if len(todo) > 0 {
			return todo, false, progress(failed, todo)
		}
		if i < len(rs)-1 {
			if r := got[rung[0]]; r.OK {
				return nil, true, "recovered by " + string(r.Step)
			}
			failed = append(failed, string(rung[0]))
			continue
		}
		return nil, true, gaveUp(role, failed, rung, got)
	}
	return nil, true, "" // unreachable: the last rung always returns
}

func progress(failed []string, todo []Step) string {
	next := make([]string, len(todo))
	for i, s := range todo {
		next[i] = string(s)
	}
	if len(failed) == 0 {
		return "next: " + strings.Join(next, " + ")
	}
	return fmt.Sprintf("%s failed; next: %s", strings.Join(failed, " and "), strings.Join(next, " + "))
}

// gaveUp writes the outcome once the last rung has run.
func gaveUp(role model.Role, failed []string, rung []Step, got map[Step]StepResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s failed", strings.Join(failed, " and "))
	for _, s := range rung {
		r := got[s]
		switch {
		case r.OK && s == MarkUnhealthy:
			b.WriteString("; marked Unhealthy")
		case r.OK && s == PowerOff:
			b.WriteString("; powered off")
		case r.OK && s == Failover && role == model.RoleKCPSpare:
			b.WriteString("; a management server became the new spare")
		case r.OK && s == Failover && r.Detail != "":
			b.WriteString("; failed over to " + r.Detail)
		case r.OK && s == Failover:
			b.WriteString("; failed over to the spare")
		case r.Detail != "":
			fmt.Fprintf(&b, "; %s failed: %s", s, r.Detail)
		default:
			fmt.Fprintf(&b, "; %s failed", s)
		}
	}
	b.WriteString("; a BMM Replace action returns it to service")
	return b.String()
}
