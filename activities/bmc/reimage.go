package bmc

import (
	"context"
	"fmt"
)

// Reimage installs in.Version from in.ImageURL through the virtual CD:
// eject whatever is inserted → insert the image → one-time boot from Cd →
// reset (ForceRestart, or On when off) → wait, heartbeating → eject.
//
// Completion is read with standard Redfish only: the reset's task monitor
// when the BMC gives one (Exception = failed), then the System settling
// (PowerState On/Off, Status.State neither Starting nor Updating) with the
// installed version, which the BMC publishes as the Version of the
// SoftwareInventory linked from the System's OperatingSystem resource
// (OperatingSystem.Links.SoftwareImage). A BMC without that resource is
// judged by BootProgress.LastState = OSRunning after the boot from the CD;
// the caller should then confirm the version elsewhere (the node label).
//
// Idempotent: it first waits out a boot or reimage in flight, and returns at
// once when the machine already runs Version (only ejecting this image if a
// crashed attempt left it in). A retried attempt whose predecessor issued
// the reset does not reset again; it reports that reimage's outcome.
func (a *Activities) Reimage(ctx context.Context, in ReimageInput) (ReimageResult, error) {
	if err := checkImageURL(in.ImageURL); err != nil {
		return ReimageResult{}, temporalError(in.Endpoint, &stepError{"check the input", &failure{kindConfig, err.Error()}})
	}
	if in.Version == "" {
		return ReimageResult{}, temporalError(in.Endpoint, &stepError{"check the input", &failure{kindConfig, "the target Version is empty"}})
	}
	return perform(ctx, a, in.Endpoint, func(r *run) (ReimageResult, error) { return r.reimage(in) })
}

func (r *run) reimage(in ReimageInput) (ReimageResult, error) {
	res := ReimageResult{Version: in.Version}
	r.progress = progress{Version: in.Version}
	prev, ok := r.resumed()
	resumed := ok && prev.ResetIssued && prev.Version == in.Version
	if resumed {
		r.progress = prev // a crash of this attempt must not forget the reset either
	}

	s, err := r.settled()
	if err != nil {
		return res, err
	}
	img, err := r.osImage("read the installed OS image")
	if err != nil {
		return res, err
	}
	res.PreviousVersion = img.Version
	if resumed {
		res.PreviousVersion, res.Reimaged = prev.From, true
	}
	ours := func(m Media) bool { return sameImage(m.Image, in.ImageURL) }

	if atVersion(img, in.Version) && (!in.Force || resumed) {
		if err := r.ejectIf(ours); err != nil {
			return res, err
		}
		if s.PowerState == "Off" {
			return res, r.powerOn()
		}
		return res, nil
	}
	if resumed && img.Health == "Critical" {
		_ = r.ejectIf(ours) // best effort: the failure is what to report
		return res, &stepError{"reimage", &failure{kindReimageFailed, "the reimage an earlier attempt started has failed: the installed image reports Critical health"}}
	}

	r.progress.From = img.Version
	if err := r.ejectIf(func(m Media) bool { return true }); err != nil {
		return res, err
	}
	if err := r.insert(in.ImageURL); err != nil {
		return res, err
	}
	s, err = r.bootOnceFromCd()
	if err != nil {
		return res, err
	}
	rt, tookEffect := "ForceRestart", func(s System) bool {
		return s.PowerState != "On" || inFlight(s) || s.BootOverride != "Once"
	}
	if s.PowerState == "Off" {
		rt, tookEffect = "On", func(s System) bool { return s.PowerState != "Off" }
	}
	task, err := r.reset(rt, tookEffect)
	if err != nil {
		return res, err
	}
	r.progress.ResetIssued = true
	r.heartbeat("reimaging")

	waitErr := r.waitReimage(task, in.Version)
	ejectErr := r.ejectIf(ours) // whatever the outcome: leave no installer in the drive
	if waitErr != nil {
		return res, waitErr
	}
	if ejectErr != nil {
		return res, ejectErr // retryable; the retry finds the version and only ejects
	}
	res.Reimaged = true
	return res, nil
}

func inFlight(s System) bool { return s.State == "Starting" || s.State == "Updating" }

func settledState(s System) bool {
	return (s.PowerState == "On" || s.PowerState == "Off") && !inFlight(s)
}

func atVersion(img OSImage, v string) bool {
	return img.Version == v && (img.Health == "" || img.Health == "OK")
}

// settled waits out a power transition, boot or reimage in flight, so the
// decision what to do is made on a machine at rest.
func (r *run) settled() (System, error) {
	var s System
	err := r.waitUntil("wait for the machine to settle", 0, func() (bool, error) {
		var err error
		s, err = r.system("read the System")
		return settledState(s), err
	})
	return s, err
}

func (r *run) waitTask(step, monitor string, failed kind) error {
	return r.waitUntil(step, 0, func() (bool, error) {
		done, err := r.checkTask(&monitor, failed)
		return done || monitor == "", err
	})
}

// ejectIf ejects the drive's image when match says so; an empty drive is
// left alone.
func (r *run) ejectIf(match func(Media) bool) error {
	var task string
	err := r.act("eject the virtual media", func() (bool, error) {
		m, err := r.media()
		return err == nil && ((!m.Inserted && m.Image == "") || !match(m)), err
	}, func() (err error) {
		task, err = r.c.EjectMedia(r.ctx)
		return err
	})
	if err != nil {
		return err
	}
	return r.waitTask("wait for the virtual media to eject", task, kindRejected)
}

func (r *run) insert(image string) error {
	var task string
	err := r.act("insert the virtual media "+redactURL(image), func() (bool, error) {
		m, err := r.media()
		return err == nil && m.Inserted && sameImage(m.Image, image), err
	}, func() (err error) {
		task, err = r.c.InsertMedia(r.ctx, image)
		return err
	})
	if err != nil {
		return err
	}
	return r.waitTask("wait for the virtual media to mount", task, kindRejected)
}

func (r *run) media() (Media, error) {
	var m Media
	err := r.retry("read the virtual media", func() (err error) {
		m, err = r.c.Media(r.ctx)
		return err
	})
	return m, err
}

// bootOnceFromCd sets BootSourceOverrideEnabled=Once, Target=Cd with the
// System's ETag; on 412 it reads the System again and retries.
func (r *run) bootOnceFromCd() (System, error) {
	var s System
	err := r.act("set a one-time boot from the virtual CD", func() (bool, error) {
		var err error
		s, err = r.system("read the System")
		return err == nil && s.BootOverride == "Once" && s.BootTarget == "Cd", err
	}, func() error {
		return r.c.SetBootOverride(r.ctx, "Once", "Cd", s.ETag)
	})
	return s, err
}

// waitReimage waits until the reset has visibly happened (task finished,
// override consumed or the machine in transition) and the machine has
// settled, then judges the outcome.
func (r *run) waitReimage(task, version string) error {
	changed := false
	return r.waitUntil("wait for the reimage to "+version, 0, func() (bool, error) {
		done, s, err := r.observe(&task, kindReimageFailed)
		if err != nil {
			return false, err
		}
		if done || !settledState(s) || s.BootOverride != "Once" {
			changed = true
		}
		if !changed || !settledState(s) || (task != "" && !done) {
			return false, nil
		}
		img, err := r.osImage("read the installed OS image")
		switch {
		case err != nil:
			return false, err
		case atVersion(img, version):
			return true, nil
		case img.Health == "Critical":
			return false, &failure{kindReimageFailed, "the installed image reports Critical health after the reimage to " + version}
		case img.Version != "":
			return false, &failure{kindConflict, fmt.Sprintf("the machine came back running %s, not %s: the one-time boot from the virtual CD was not used", img.Version, version)}
		case s.BootProgress == "" || s.BootProgress == "OSRunning":
			return true, nil // the BMC does not report versions; an OS came up after the install
		}
		return false, &failure{kindReimageFailed, "no operating system booted after the reimage to " + version + " (BootProgress " + s.BootProgress + ")"}
	})
}
