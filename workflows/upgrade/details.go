package upgrade

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/rackroll/rackroll/internal/api"
	"go.temporal.io/sdk/workflow"
)

// show keeps the upgrade's "Current Details" in the Temporal UI (the
// workflow's User Metadata tab) in step with its status. It schedules
// nothing, so calling it never changes what replays.
func (u *upgrade) show(ctx workflow.Context) {
	workflow.SetCurrentDetails(ctx, upgradeDetails(u.st))
}

// upgradeDetails renders where an upgrade stands as Markdown: the status
// line, the phase and the servers in flight, then one row per unit.
func upgradeDetails(st api.UpgradeStatus) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**%s**, phase **%s**", st.DetailedStatus, st.Phase)
	units := st.Units()
	var running []string
	for _, u := range units {
		running = append(running, u.Running()...)
	}
	if len(running) > 0 {
		fmt.Fprintf(&b, ", in flight: %s", strings.Join(running, ", "))
	}
	fmt.Fprintf(&b, "  \n%s\n\n", st.DetailedStatusMessage)
	for _, g := range st.Guards() {
		fmt.Fprintf(&b, "- %s\n", g)
	}
	b.WriteString("| unit | state | upgraded | needed | failed |\n|---|---|---|---|---|\n")
	for _, u := range units {
		state := u.State
		if state == "" {
			state = "Pending"
		}
		failed := cmp.Or(strings.Join(u.FailedNames(), ", "), "none")
		fmt.Fprintf(&b, "| %s | %s | %d of %d | %d | %s |\n", detailsName(u), state, u.Succeeded, u.Total, u.Required, failed)
	}
	return b.String()
}

// detailsName names a unit in the details table: as the operator's texts
// do, but a rack by its name alone (rack names say they are racks).
func detailsName(u api.Unit) string {
	if u.Kind == api.UnitRack {
		return u.Name
	}
	return u.Label()
}

// serverDetails is a server child's static details in the UI.
func serverDetails(in api.ServerInput) string {
	s := fmt.Sprintf("reimage %s with %s", in.BMM, in.ImageURL)
	if in.Mode != "" {
		s += ", KCP step " + in.Mode
	}
	return s
}
