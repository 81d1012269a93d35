package upgradeplan

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/rackroll/rackroll/internal/model"
)

// Unit and server states, as query status reports them.
const (
	StatePending   = "Pending"
	StateRunning   = "Running"
	StateSucceeded = "Succeeded"
	StateFailed    = "Failed"
	StatePaused    = "Paused"
	StateSkipped   = "Skipped" // already at the target version: counts as upgraded
	StateCancelled = "Cancelled"
)

// ServerStatus is one server within a unit.
type ServerStatus struct {
	Name  string `json:"name"`
	State string `json:"state"`
	Error string `json:"error,omitempty"`
	// Step is the step a failed server failed at (cordon, drain, reimage…).
	Step string `json:"step,omitempty"`
}

// UnitStatus is the control plane, a management group or a rack: its
// servers and the counts folded from them by Apply, the one place a
// unit's servers are counted.
type UnitStatus struct {
	Name      string `json:"name"`
	State     string `json:"state"`
	Total     int    `json:"total"`
	Succeeded int    `json:"succeeded"` // Skipped servers included: they are at the target
	Failed    int    `json:"failed"`
	// Skipped is how many of Succeeded were at the target before this run.
	Skipped    int            `json:"skipped,omitempty"`
	Required   int            `json:"required"`
	StartedAt  *time.Time     `json:"startedAt,omitempty"`
	FinishedAt *time.Time     `json:"finishedAt,omitempty"`
	Servers    []ServerStatus `json:"servers"`
	// ContinuedAt is when continue-update released the pause after this
	// unit (missed threshold or PauseAfterRack): the operator's word on
	// record, which `starter lab check --upgrade` holds the log against.
	ContinuedAt *time.Time `json:"continuedAt,omitempty"`
}

// NewUnit is a unit whose servers have not started; required of them
// must succeed.
func NewUnit(name string, servers []string, required int) UnitStatus {
	u := UnitStatus{Name: name, State: StatePending, Total: len(servers), Required: required}
	for _, s := range servers {
		u.Servers = append(u.Servers, ServerStatus{Name: s, State: StatePending})
	}
	return u
}

// FirstWave is the servers a rack child starts at once, in order: Parallel
// of them, or all when Parallel is 0 or more than the rack. Each server
// that ends starts the next.
func (r Rack) FirstWave() []string {
	if r.Parallel <= 0 || r.Parallel > len(r.Servers) {
		return r.Servers
	}
	return r.Servers[:r.Parallel]
}

// progress orders server states: a server only moves forward.
func progress(state string) int {
	switch state {
	case StatePending, "":
		return 0
	case StateRunning:
		return 1
	}
	return 2
}

// Apply folds server states into the unit and recounts it. A state never
// moves back (Pending → Running → an end state), so a report that arrives
// late, twice or after the final result changes nothing. Servers not in
// the unit are ignored.
func (u *UnitStatus) Apply(servers ...ServerStatus) {
	for _, s := range servers {
		for i := range u.Servers {
			if u.Servers[i].Name == s.Name && progress(s.State) >= progress(u.Servers[i].State) {
				u.Servers[i] = s
			}
		}
	}
	u.Succeeded, u.Failed, u.Skipped = 0, 0, 0
	for _, s := range u.Servers {
		switch s.State {
		case StateSucceeded:
			u.Succeeded++
		case StateSkipped:
			u.Succeeded++
			u.Skipped++
		case StateFailed:
			u.Failed++
		}
	}
}

// CancelPending marks the servers that never started Cancelled: after
// cancel-update no new server starts.
func (u *UnitStatus) CancelPending() {
	for _, s := range u.Servers {
		if s.State == StatePending {
			u.Apply(ServerStatus{Name: s.Name, State: StateCancelled})
		}
	}
}

// Unstart returns names from Running to Pending: a batch marked Running as
// its child started, which the capacity guard held before its drain,
// touched none of them.
func (u *UnitStatus) Unstart(names ...string) {
	for i, s := range u.Servers {
		if s.State == StateRunning && slices.Contains(names, s.Name) {
			u.Servers[i] = ServerStatus{Name: s.Name, State: StatePending}
		}
	}
}

// StateOf is the state of server name in the unit ("" when not in it).
func (u UnitStatus) StateOf(name string) string {
	for _, s := range u.Servers {
		if s.Name == name {
			return s.State
		}
	}
	return ""
}

// Running lists the servers in flight.
func (u UnitStatus) Running() []string { return u.names(StateRunning) }

// FailedNames lists the servers that failed.
func (u UnitStatus) FailedNames() []string { return u.names(StateFailed) }

func (u UnitStatus) names(state string) []string {
	var out []string
	for _, s := range u.Servers {
		if s.State == state {
			out = append(out, s.Name)
		}
	}
	return out
}

// Met reports whether enough servers succeeded.
func (u UnitStatus) Met() bool { return u.Succeeded >= u.Required }

// Missed is why the upgrade pauses after a finished unit that fell short
// of its threshold, "" when it met it. group is true for a management
// group (50 % must succeed), false for a compute rack.
func (u UnitStatus) Missed(group bool) string {
	if u.Met() {
		return ""
	}
	failed := cmp.Or(strings.Join(u.FailedNames(), ", "), "none")
	if group {
		return fmt.Sprintf("management group %s: %d of %d servers upgraded, %d needed (50 %%); failed: %s. Fix them, then continue-update or cancel-update",
			u.Name, u.Succeeded, u.Total, u.Required, failed)
	}
	return fmt.Sprintf("rack %s missed its threshold: %d of %d servers upgraded, %d needed; failed: %s. Continue-update to go on, cancel-update to stop",
		u.Name, u.Succeeded, u.Total, u.Required, failed)
}

// Unreachable is why a management group stops before its stage next: the
// servers already failed leave too few to reach Required even if every
// server not yet run succeeds (a bad image would take the rest of the group
// down too). "" while the group can still meet its threshold.
func (u UnitStatus) Unreachable(next int) string {
	pending := u.Total - u.Succeeded - u.Failed
	if u.Succeeded+pending >= u.Required {
		return ""
	}
	return fmt.Sprintf("management group %s: %d of %d servers failed (%s), so it can no longer reach %d (50 %%); stage %d not started. Fix them, then continue-update or cancel-update",
		u.Name, u.Failed, u.Total, cmp.Or(strings.Join(u.FailedNames(), ", "), "none"), u.Required, next)
}

// PauseAfter is why the upgrade pauses after rack u under strategy s when
// rack next follows, "" when it goes straight on (strategy Rack, or the
// last rack: next is "").
func (u UnitStatus) PauseAfter(s model.UpdateStrategy, next string) string {
	if s.StrategyType != model.StrategyPauseAfterRack || next == "" {
		return ""
	}
	return fmt.Sprintf("rack %s done (%d of %d upgraded); paused after the rack: continue-update to start rack %s",
		u.Name, u.Succeeded, u.Total, next)
}
