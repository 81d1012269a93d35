package upgradeplan

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rackroll/rackroll/internal/model"
)

// Canary is the compute phase's first servers, upgraded before the rest of
// their rack. When every one of them fails at the same step the failures
// look systemic (a bad image, a broken install path), and the upgrade
// pauses before starting any other compute server, whatever the threshold
// (docs/behaviour-upgrade.md#guards).
type Canary struct {
	Rack    string   `json:"rack"`
	Servers []string `json:"servers"`
}

// canaryOf is the first k servers still to reimage of the first rack that
// has any; none when k is 0 or that rack has fewer than k to reimage (a
// pattern needs k failures).
func canaryOf(c model.Cluster, racks []Rack, k int, to string) *Canary {
	if k <= 0 {
		return nil
	}
	for _, r := range racks {
		var todo []string
		for _, s := range r.Servers {
			if !atTarget(c, s, to) {
				todo = append(todo, s)
			}
		}
		if len(todo) == 0 {
			continue
		}
		if len(todo) < k {
			return nil
		}
		return &Canary{Rack: r.Name, Servers: todo[:k]}
	}
	return nil
}

// Split is the rack's canary, run first, and the rest of its servers, in
// their order; each keeps the rack's name and its parallelism.
func (c Canary) Split(r Rack) (first, rest Rack) {
	first = Rack{Name: r.Name, Servers: c.Servers, Parallel: len(c.Servers)}
	if r.Parallel > 0 { // maxUnavailable holds for the canary too
		first.Parallel = min(r.Parallel, len(c.Servers))
	}
	rest = Rack{Name: r.Name, Required: r.Required, Parallel: r.Parallel}
	for _, s := range r.Servers {
		if !slices.Contains(c.Servers, s) {
			rest.Servers = append(rest.Servers, s)
		}
	}
	return first, rest
}

// Verdict judges the canary from its rack's unit once its servers ended:
// systemic when every one failed at the same step, with the pause's
// message; otherwise what it saw.
func (c Canary) Verdict(u UnitStatus) (msg string, systemic bool) {
	step, same := "", true
	var failed, passed []string
	for i, name := range c.Servers {
		s := u.server(name)
		if s.State != StateFailed {
			passed = append(passed, name+" "+strings.ToLower(s.State))
			continue
		}
		failed = append(failed, name)
		if i == 0 {
			step = s.Step
		}
		same = same && s.Step != "" && s.Step == step
	}
	names := strings.Join(c.Servers, ", ")
	if len(failed) == len(c.Servers) && same {
		return fmt.Sprintf("the first %d compute servers (%s) all failed at the same step, %s: the failures look systemic (the image, the network, the install path?), so no other compute server was started. Fix the cause, then continue-update to go on or cancel-update to stop",
			len(c.Servers), names, step), true
	}
	if len(failed) == len(c.Servers) {
		return fmt.Sprintf("the first %d compute servers (%s) failed, at different steps: not taken as systemic; the threshold judges", len(c.Servers), names), false
	}
	return fmt.Sprintf("the first %d compute servers (%s) went first: %s", len(c.Servers), names, strings.Join(passed, ", ")), false
}

func (u UnitStatus) server(name string) ServerStatus {
	for _, s := range u.Servers {
		if s.Name == name {
			return s
		}
	}
	return ServerStatus{Name: name}
}
