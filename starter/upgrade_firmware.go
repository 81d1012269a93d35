package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/firmware"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/upgradeplan"
)

// plannedFirmware is what the upgrade's firmware step would do to one
// server, as its BMC shows it now (docs/firmware-replace-upgrade.md#upgrade).
type plannedFirmware struct {
	BMM string `json:"bmm"`
	// Apply are the components below the target's baseline, in the order
	// the step applies them ("BIOS 1.10.0 → 1.13.2").
	Apply []string `json:"apply,omitempty"`
	// Unknown are the components that cannot be judged (never applied).
	Unknown []string `json:"unknown,omitempty"`
	// Components are every component of the server's entry: its version,
	// where it was read, its minimum and status.
	Components []firmware.Finding `json:"components,omitempty"`
	Note       string             `json:"note,omitempty"`
	Error      string             `json:"error,omitempty"`
}

// planFirmware reads, from this machine, the BMC of every server the
// upgrade to version runs its firmware step on (upgradeplan.GetsFirmwareStep:
// those it reinstalls, and those already at version it still runs) and says which components its firmware
// step would apply. Nothing when version declares no baseline. A BMC that
// cannot be read is named, not a refusal: the step itself will read it.
func planFirmware(ctx context.Context, st api.ClusterState, version string) []plannedFirmware {
	base := st.Firmware[version]
	if base == nil {
		return nil
	}
	var bmms []model.BMM
	for _, b := range st.Cluster.BMMs {
		if upgradeplan.GetsFirmwareStep(b, version) {
			bmms = append(bmms, b)
		}
	}
	read := readFirmware(ctx, st, bmms, version, 30*time.Second)
	out := make([]plannedFirmware, 0, len(read))
	for _, r := range read {
		out = append(out, planOf(base, r))
	}
	return out
}

// planOf is what the firmware step would do to one server read: one line
// per component, its versions with where each was read.
func planOf(base firmware.Baseline, r serverFirmware) plannedFirmware {
	pf := plannedFirmware{BMM: r.BMM, Error: r.Error}
	if r.Error != "" {
		return pf
	}
	p := firmware.PlanFor(base, r.server)
	pf.Note, pf.Components = p.Note, firmware.ByComponent(firmware.Judge(base, r.server).Rows)
	for _, f := range firmware.ByComponent(p.Below) {
		pf.Apply = append(pf.Apply, fmt.Sprintf("%s %s → %s", f.Component, f.Read(), f.Minimum))
	}
	for _, f := range firmware.ByComponent(p.Unknown) {
		pf.Unknown = append(pf.Unknown, f.Component+": "+f.Text())
	}
	return pf
}

// firmwareNotes are the plan's lines about firmware: a line per server
// that gets a component, cannot be judged or read, and how many are at
// the baseline already.
func firmwareNotes(version string, fw []plannedFirmware) []string {
	if fw == nil {
		return nil
	}
	var out []string
	at := 0
	for _, f := range fw {
		switch {
		case f.Error != "":
			out = append(out, fmt.Sprintf("Firmware %s: not read from this machine (%s); the upgrade's step reads it", f.BMM, f.Error))
		case len(f.Apply) > 0 || len(f.Unknown) > 0:
			line := "Firmware " + f.BMM + ":"
			if len(f.Apply) > 0 {
				line += " gets " + strings.Join(f.Apply, ", ")
			}
			if len(f.Unknown) > 0 {
				line += " not judged " + strings.Join(f.Unknown, "; ")
			}
			out = append(out, line)
		default:
			at++
		}
	}
	return append([]string{fmt.Sprintf("Firmware: baseline of %s, applied after each server's drain, before its reimage; %d of %d servers at it already",
		version, at, len(fw))}, out...)
}
