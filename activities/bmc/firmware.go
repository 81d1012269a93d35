package bmc

import (
	"context"
	"fmt"

	"github.com/rackroll/rackroll/activities/bmc/bmcclient"
	"github.com/rackroll/rackroll/internal/firmware"
	"github.com/rackroll/rackroll/internal/sitecheck"
)

// ReadFirmware reads what the BMC shows of the server's firmware: the
// System's Manufacturer and Model (which baseline entry applies) and every
// member of UpdateService/FirmwareInventory (Id, Name, Version,
// Updateable, RelatedItem). It only reads. Judging the result against a
// baseline is firmware.Judge's, not the activity's.
func (a *Activities) ReadFirmware(ctx context.Context, ep Endpoint) (firmware.Server, error) {
	return perform(ctx, a, ep, func(r *run) (firmware.Server, error) {
		return read(r, "read the firmware inventory", r.c.Firmware)
	})
}

// firmwareFinding is site check's line on the firmware: the BIOS and BMC
// versions as before, and against the baseline when one is given.
func firmwareFinding(ctx context.Context, c bmcclient.Client, baseline firmware.Baseline) []sitecheck.Item {
	s, err := c.Firmware(ctx)
	if err != nil {
		return []sitecheck.Item{sitecheck.Warning("firmware inventory", "could not read UpdateService/FirmwareInventory: "+describe(err),
			"the BMC must expose UpdateService/FirmwareInventory for rackroll to check firmware against the runtime's baseline")}
	}
	if baseline == nil {
		return []sitecheck.Item{sitecheck.OK("firmware inventory", fmt.Sprintf("%d components listed; no firmware baseline declared for the site's runtime version", len(s.Items)))}
	}
	rep := firmware.Judge(baseline, s)
	switch below, unknown := rep.Below(), rep.Unknown(); {
	case rep.Note != "":
		return []sitecheck.Item{sitecheck.Warning("firmware baseline", rep.Note, "add a baseline entry for "+s.Manufacturer+" "+s.Model+" under images.firmware")}
	case len(below) > 0:
		return []sitecheck.Item{sitecheck.Warning("firmware baseline", rowsText(below), "update the firmware named to the baseline's minimum (`starter bmm firmware` lists every component)")}
	case len(unknown) > 0:
		return []sitecheck.Item{sitecheck.Warning("firmware baseline", rowsText(unknown), "check the baseline's inventory pattern and the versions the BMC shows")}
	}
	return []sitecheck.Item{sitecheck.OK("firmware baseline", fmt.Sprintf("%d components at baseline (%s)", len(rep.Rows), rep.Entry))}
}

func rowsText(rows []firmware.Row) string {
	out := ""
	for i, r := range rows {
		if i > 0 {
			out += "; "
		}
		cur := r.Current
		if cur == "" {
			cur = "?"
		}
		out += fmt.Sprintf("%s %s (minimum %s): %s", r.Component, cur, r.Minimum, r.Why)
	}
	return out
}
