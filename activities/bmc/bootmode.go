package bmc

import (
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/rackroll/rackroll/activities/bmc/bmcclient"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/sitecheck"
)

// The one-time boot from the virtual CD, with the firmware mode the
// installer needs (docs/evidence.md, "The boot mode"). What vendors do,
// each handled here and nowhere else:
//   - A system left in Legacy mode does not boot a UEFI installer: Ironic
//     sets BootSourceOverrideMode explicitly (ironic/drivers/modules/
//     redfish/management.py set_boot_mode, and boot_mode_utils.sync_boot_mode
//     after every set_boot_device: "Some BMCs reset it to default (BIOS) when
//     changing the boot device"). So the mode goes in the same PATCH as the
//     target, and both are read back together.
//   - HPE DL160 Gen10 refuses a Boot PATCH carrying every field and takes
//     target and enabled alone (bmclib internal/redfishwrapper
//     SystemBootDeviceSet retries "with a minimal set of fields"). On a 400
//     the PATCH is sent once more without the mode; the read-back then
//     decides: a system already in the mode passes, one that is not fails
//     typed, naming the refusal.
//   - The DMTF ComputerSystem schema makes BootSourceOverrideMode optional:
//     a System that does not show it is not sent it (a PATCH of a property
//     a BMC lacks is refused, 400 PropertyUnknown) and boots in its
//     firmware's own mode.

// chooseBootMode is the mode to send with the one-time boot: "" when the
// System does not offer the property; an error when its allowable values
// exclude want (before anything is changed).
func chooseBootMode(want string, s bmcclient.System) (string, error) {
	switch {
	case !s.BootModeShown && len(s.BootModes) == 0:
		return "", nil
	case len(s.BootModes) > 0 && !slices.Contains(s.BootModes, want):
		return "", &stepError{"choose the boot mode", &failure{kindRejected, fmt.Sprintf(
			"the System cannot boot the installer in %s: BootSourceOverrideMode allows %v; set images.bootMode (or the server's bmc.bootMode) to a mode the installer boots in",
			want, s.BootModes)}}
	}
	return want, nil
}

// bootOnce sets BootSourceOverrideEnabled=Once with target (and mode,
// unless ""), using the System's ETag (on 412 it reads the System again
// and retries), then reads it back: a BMC that keeps Continuous
// (sushy-tools) is recorded in the progress, so the result says so and
// EjectMedia clears it; one that shows neither, or another mode, within
// MediaTimeout fails typed.
func (r *run) bootOnce(target, mode string) (bmcclient.System, error) {
	var s bmcclient.System
	var acc bmcclient.Accepted
	var modeRefused error // the 400 a PATCH with the mode got (HPE DL160 Gen10)
	holds := func(s bmcclient.System, enabled ...string) bool {
		return s.BootTarget == target && slices.Contains(enabled, s.BootOverride) && (mode == "" || s.BootMode == mode)
	}
	step := "set a one-time boot from " + target
	if mode != "" {
		step += " in " + mode + " mode"
	}
	err := r.act(step, func() (bool, error) {
		var err error
		s, err = r.system("read the System")
		return err == nil && holds(s, "Once"), err
	}, func() error {
		acc = bmcclient.Accepted{Status: http.StatusOK}
		err := r.c.SetBootOverride(r.ctx, bmcclient.BootOverride{Enabled: "Once", Target: target, Mode: mode}, s.ETag)
		if mode != "" && modeRefused == nil && bmcclient.StatusOf(err) == http.StatusBadRequest {
			modeRefused = err // not heartbeated: only what a retry must find is (issueReset records the reset)
			err = r.c.SetBootOverride(r.ctx, bmcclient.BootOverride{Enabled: "Once", Target: target}, s.ETag)
		}
		return err
	})
	if err != nil {
		return s, err
	}
	err = r.waitUntil("read back the one-time boot", r.a.mediaTimeout(), func() (bool, error) {
		var err error
		s, err = r.system("read the System")
		return err == nil && holds(s, "Once", "Continuous"), err
	})
	if errors.Is(err, errWaitLimit) {
		return s, &stepError{"read back the one-time boot", &failure{kindNoEffect, bootNotHeld(target, mode, acc, s, modeRefused, r.a.mediaTimeout().String())}}
	}
	if err == nil && s.BootOverride == "Continuous" {
		r.progress.BootOverride = "Continuous"
		r.heartbeat("the BMC made the one-time boot from " + target + " Continuous; the installer is ejected and the override cleared once the node is back")
	}
	return s, err
}

// bootNotHeld says what was asked and what the System shows instead.
func bootNotHeld(target, mode string, acc bmcclient.Accepted, s bmcclient.System, modeRefused error, within string) string {
	asked := "the one-time boot from " + target
	shows := fmt.Sprintf("BootSourceOverrideEnabled %q, BootSourceOverrideTarget %q", s.BootOverride, s.BootTarget)
	if mode == "" {
		return fmt.Sprintf("accepted %s (%s) but shows %s after %s", asked, acc, shows, within)
	}
	shows += fmt.Sprintf(", BootSourceOverrideMode %q", s.BootMode)
	if modeRefused != nil {
		return fmt.Sprintf("refused BootSourceOverrideMode %s (%s) and accepted %s without it (%s), but shows %s after %s: the installer boots only in %s mode",
			mode, describe(modeRefused), asked, acc, shows, within, mode)
	}
	return fmt.Sprintf("accepted %s in %s mode (%s) but shows %s after %s", asked, mode, acc, shows, within)
}

// bootModeFinding is `site check`'s line for the mode the installer needs.
func bootModeFinding(want string, s bmcclient.System) sitecheck.Item {
	mode, err := chooseBootMode(want, s)
	switch {
	case err != nil:
		return sitecheck.Blocker("boot mode", fmt.Sprintf("the installer needs %s; BootSourceOverrideMode allows %v", want, s.BootModes),
			"set images.bootMode (or the server's bmc.bootMode) to a mode the installer boots in, or change the BMC's firmware settings")
	case mode == "":
		return sitecheck.OK("boot mode", "the System does not show BootSourceOverrideMode: it boots the installer in its firmware's mode ("+want+" needed)")
	}
	now := s.BootMode
	if now == "" {
		now = "null"
	}
	return sitecheck.OK("boot mode", fmt.Sprintf("%s, set with the one-time boot (now %s; allowed: %s)", want, now, listOrNone(s.BootModes)))
}

// bootModeOfEndpoint is the mode ep's installer needs.
func bootModeOfEndpoint(ep Endpoint) string { return model.BootModeOr(ep.BootMode) }
