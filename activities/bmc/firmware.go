package bmc

import (
	"context"
	"fmt"

	"github.com/rackroll/rackroll/activities/bmc/bmcclient"
	"github.com/rackroll/rackroll/internal/firmware"
	"github.com/rackroll/rackroll/internal/sitecheck"
)

// ReadFirmware reads what the BMC shows of the server's firmware: the
// System's Manufacturer and Model (which baseline entry applies), every
// member of UpdateService/FirmwareInventory (Id, Name, Version,
// Updateable, RelatedItem) where it has one, and the standard version
// properties (the System's BiosVersion, the Manager's FirmwareVersion, the
// network adapters' and storage controllers'). It only reads. Judging the
// result against a baseline is firmware.Judge's, not the activity's.
func (a *Activities) ReadFirmware(ctx context.Context, ep Endpoint) (firmware.Server, error) {
	return perform(ctx, a, ep, func(r *run) (firmware.Server, error) {
		return read(r, "read the firmware inventory", r.c.Firmware)
	})
}

// firmwareFindings are site check's lines on the firmware, read as the
// activities read it: without a baseline one line, the BIOS and BMC
// versions and where each was read; with one, a line per component the
// server's entry names — what was read, where, the minimum and, when not
// at it, why — never two that disagree. A component below or unknown is a
// warning: rackroll can run on such a site; the operator decides.
func firmwareFindings(ctx context.Context, c bmcclient.Client, baseline firmware.Baseline) []sitecheck.Item {
	s, err := c.Firmware(ctx)
	if err != nil {
		return []sitecheck.Item{sitecheck.Warning("firmware", "could not read the firmware: "+describe(err),
			"the BMC must show the System, and its versions in UpdateService/FirmwareInventory or the System's BiosVersion and the Manager's FirmwareVersion")}
	}
	if baseline == nil {
		return []sitecheck.Item{sitecheck.OK("firmware", versionsText(s)+"; no firmware baseline declared for the site's runtime version")}
	}
	rep := firmware.Judge(baseline, s)
	if rep.Note != "" {
		return []sitecheck.Item{sitecheck.Warning("firmware baseline", rep.Note+" ("+versionsText(s)+")", "add a baseline entry for "+s.Manufacturer+" "+s.Model+" under images.firmware")}
	}
	var out []sitecheck.Item
	for _, f := range firmware.ByComponent(rep.Rows) {
		check := "firmware " + f.Component
		switch f.Status {
		case firmware.AtBaseline:
			out = append(out, sitecheck.OK(check, f.Text()))
		case firmware.Below:
			out = append(out, sitecheck.Warning(check, f.Text(), "bring "+f.Component+" to "+f.Minimum+": a replace with --apply-firmware, or the runtime upgrade, applies it (`starter bmm firmware` lists every component)"))
		default:
			out = append(out, sitecheck.Warning(check, f.Text(), "check the component's inventory pattern and source in the baseline against what the BMC shows (`starter bmm firmware`)"))
		}
	}
	return out
}

// versionsText is the BIOS and BMC versions with where each was read,
// and whether the BMC has a FirmwareInventory.
func versionsText(s firmware.Server) string {
	shown := func(kind, name string) string {
		for _, p := range s.Properties {
			if p.Kind == kind {
				return fmt.Sprintf("%s %s (%s)", name, p.Version, p.Source)
			}
		}
		return name + " not shown"
	}
	inv := fmt.Sprintf("%d FirmwareInventory members", len(s.Items))
	if s.NoInventory {
		inv = "no FirmwareInventory (" + s.InventoryWhy + ")"
	}
	return shown(firmware.KindBIOS, "BIOS") + ", " + shown(firmware.KindBMC, "BMC") + "; " + inv
}
