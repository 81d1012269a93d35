package main

import (
	"cmp"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/output"
	"github.com/rackroll/rackroll/internal/upgradeplan"
)

// writePlan renders `upgrade plan`: JSON/YAML as is, or readable tables.
func writePlan(w io.Writer, format string, p upgradeplan.Plan, perServer time.Duration, full any, notes ...string) error {
	if format != "table" {
		return output.Write(w, format, full, nil)
	}
	fmt.Fprintf(w, "Runtime upgrade of %s: %s → %s\n", p.Cluster, p.From, p.To)
	fmt.Fprintf(w, "Update %s\n", p.Strategy.Describe())
	for _, n := range append(planNotes(p), notes...) {
		fmt.Fprintln(w, n)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "1. Control plane (serial, one server at a time)")
	t := output.Table{Header: []string{"step", "bmm", "action", "note"}}
	for i, k := range p.ControlPlane {
		note := map[upgradeplan.KCPAction]string{upgradeplan.KCPUpgradeSpare: "spare reimaged first, joins the control plane",
			upgradeplan.KCPSwap: "leaves, is reimaged, rejoins", upgradeplan.KCPRetire: "leaves; becomes the new spare (Available), not reimaged",
			upgradeplan.KCPReimage: "reimaged in place (no spare)"}[k.Action]
		if k.Skip {
			note = cmp.Or(k.Why, "nothing to do") + ": skipped"
		}
		t.Rows = append(t.Rows, []string{fmt.Sprint(i + 1), k.BMM, string(k.Action), note})
	}
	output.WriteTable(w, t)
	fmt.Fprintln(w, "\n2. Management groups (a then b, two stages each, 50 % must succeed)")
	t = output.Table{Header: []string{"group", "stage", "servers", "required"}}
	for _, g := range p.Management {
		for i, st := range g.Stages {
			t.Rows = append(t.Rows, []string{g.Name, fmt.Sprint(i + 1), strings.Join(st, " "), fmt.Sprintf("%d of group", g.Required)})
		}
	}
	output.WriteTable(w, t)
	fmt.Fprintln(w, "\n3. Compute racks (natural order, one rack at a time)")
	t = output.Table{Header: []string{"order", "rack", "servers", "required", "at once"}}
	for i, r := range p.Racks {
		t.Rows = append(t.Rows, []string{fmt.Sprint(i + 1), r.Name, fmt.Sprint(len(r.Servers)), fmt.Sprint(r.Required), fmt.Sprint(r.Parallel)})
	}
	output.WriteTable(w, t)
	if len(p.Skipped) > 0 {
		fmt.Fprintln(w, "\nSkipped: out of service, in no phase and no threshold")
		t = output.Table{Header: []string{"bmm", "role", "reason"}}
		for _, s := range p.Skipped {
			t.Rows = append(t.Rows, []string{s.BMM, s.Role, s.Reason})
		}
		output.WriteTable(w, t)
	}
	fmt.Fprintf(w, "\nCritical path: %v (at %v per server upgrade)\n", p.CriticalPath(perServer), perServer)
	return nil
}

// planNotes says what a run of the same target again does and how many
// servers are skipped: `upgrade plan` and `upgrade start` print them.
func planNotes(p upgradeplan.Plan) []string {
	var out []string
	switch {
	case p.FirmwareOnly:
		out = append(out, fmt.Sprintf("Runs the upgrade to %s again for its firmware baseline: the cluster already runs it; nothing is reimaged, "+
			"servers below the baseline get their firmware in a window of their own", p.To))
	case p.Resume && len(p.Finishing) == 0:
		out = append(out, fmt.Sprintf("Runs the upgrade to %s again: every planned server is already at it; nothing to reimage", p.To))
	case p.Resume:
		out = append(out, fmt.Sprintf("Runs the upgrade to %s again: finishes the %d servers not yet at it (the rest are skipped): %s",
			p.To, len(p.Finishing), strings.Join(p.Finishing, ", ")))
	}
	if !p.Resume && !p.FirmwareOnly && p.AtTarget > 0 {
		out = append(out, fmt.Sprintf("%d of the planned servers already run %s (an earlier run reached them): each is skipped and counted as upgraded", p.AtTarget, p.To))
	}
	if c := p.Canary; c != nil {
		out = append(out, fmt.Sprintf("Canary: %s go first in %s; if all fail at the same step the upgrade pauses before any other compute server (systemicFailures %d)",
			strings.Join(c.Servers, ", "), c.Rack, len(c.Servers)))
	}
	if len(p.Skipped) > 0 {
		names := make([]string, len(p.Skipped))
		for i, s := range p.Skipped {
			names[i] = s.BMM
		}
		out = append(out, fmt.Sprintf("Skipped, out of service: %s (see the table below)", strings.Join(names, ", ")))
	}
	return out
}

func writeUpgradeStatus(w io.Writer, format string, st api.UpgradeStatus) error {
	return output.Write(w, format, st, func() output.Table {
		t := output.Table{Header: []string{"unit", "state", "progress", "succeeded", "failed", "required", "failed servers"}}
		for _, u := range st.Units() {
			name := u.Name // the control plane's unit names itself
			if u.Kind != api.UnitControlPlane {
				name = string(u.Kind) + " " + u.Name
			}
			t.Rows = append(t.Rows, []string{name, u.State, bar(u.Succeeded+u.Failed, u.Total, 20),
				fmt.Sprint(u.Succeeded), fmt.Sprint(u.Failed), fmt.Sprint(u.Required), dash(strings.Join(u.FailedNames(), ","))})
		}
		t.Notes = append(t.Notes, failedReasons(st)...)
		for _, g := range st.Guards() {
			t.Notes = append(t.Notes, "guard "+g)
		}
		return t
	})
}

// failedReasons is one line per failed server with why it failed (the
// ServerStatus Error, e.g. what the BMC showed instead of the installer),
// so the operator need not open the ledger or the JSON.
func failedReasons(st api.UpgradeStatus) []string {
	var out []string
	for _, u := range st.Units() {
		for _, s := range u.Servers {
			if s.State != api.StateFailed {
				continue
			}
			line := "failed " + s.Name
			if s.Step != "" {
				line += " at " + s.Step
			}
			why := strings.Join(strings.Fields(s.Error), " ")
			out = append(out, line+": "+cmp.Or(why, "no reason recorded"))
		}
	}
	return out
}

// bar draws done/total as a fixed-width progress bar.
func bar(done, total, width int) string {
	if total <= 0 {
		return "[" + strings.Repeat(" ", width) + "]"
	}
	n := done * width / total
	return "[" + strings.Repeat("#", n) + strings.Repeat(".", width-n) + fmt.Sprintf("] %d/%d", done, total)
}

// progressLine is the one-line summary `--watch` prints when not on a terminal.
func progressLine(st api.UpgradeStatus) string {
	u := currentUnit(st)
	line := fmt.Sprintf("%s %s", st.Phase, st.DetailedStatus)
	if u != nil {
		inFlight := u.Running()
		line += fmt.Sprintf(" | %s %s", u.Name, bar(u.Succeeded+u.Failed, u.Total, 10))
		if len(inFlight) > 0 && len(inFlight) <= 4 {
			line += " in flight: " + strings.Join(inFlight, ",")
		} else if len(inFlight) > 4 {
			line += fmt.Sprintf(" in flight: %d servers", len(inFlight))
		}
	}
	if st.DetailedStatusMessage != "" {
		line += " | " + st.DetailedStatusMessage
	}
	return line
}

func currentUnit(st api.UpgradeStatus) *api.UnitStatus {
	for _, u := range st.Units() {
		if u.State == api.StateRunning || u.State == api.StatePaused {
			return u.UnitStatus
		}
	}
	return nil
}
