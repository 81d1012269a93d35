package bmc

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/rackroll/rackroll/activities/bmc/bmcclient"
)

// EjectMedia ejects ImageURL from the virtual CD if it is what is inserted
// there; anything else (or nothing) is left alone. Idempotent: the caller
// ejects the installer only once the node came back from it.
func (a *Activities) EjectMedia(ctx context.Context, in EjectInput) error {
	if err := checkImageURL(in.ImageURL); err != nil {
		return temporalError(in.Endpoint, &stepError{"check the input", &failure{kindConfig, err.Error()}})
	}
	return a.do(ctx, in.Endpoint, func(r *run) error {
		members, err := r.virtualMedia()
		if err != nil {
			return err
		}
		for _, m := range members {
			// iDRAC shows one drive under both the System and the Manager:
			// the second eject finds it empty and does nothing.
			if occupied(m) && r.holds(m, in.ImageURL) {
				if err := r.eject(m, "eject "+bmcclient.RedactURL(in.ImageURL)+" from "+m.URI); err != nil {
					return err
				}
			}
		}
		return r.clearContinuousCD()
	})
}

// clearContinuousCD turns off a lasting boot from the virtual CD (left by
// a BMC that made the reimage's one-time boot Continuous), so the machine
// never boots the installer again.
func (r *run) clearContinuousCD() error {
	s, err := r.system("read the System")
	if err != nil || s.BootOverride != "Continuous" || !cdTarget(s.BootTarget) {
		return err
	}
	return r.act("clear the lasting boot from "+s.BootTarget, func() (bool, error) {
		var err error
		s, err = r.system("read the System")
		return err == nil && s.BootOverride != "Continuous", err
	}, func() error {
		return r.c.SetBootOverride(r.ctx, bmcclient.BootOverride{Enabled: "Disabled", Target: "None"}, s.ETag)
	})
}

// mount inserts image into the best virtual CD that takes it (see
// RankVirtualCDs), emptying that drive first. A member that refuses the
// request altogether (400 with every parameter set, 405, MissingAction) is
// skipped for the next.
func (r *run) mount(image string) error {
	members, err := r.virtualMedia()
	if err != nil {
		return err
	}
	ranked, why := RankVirtualCDs(members)
	if len(ranked) == 0 {
		return &stepError{"choose the virtual CD", &failure{kindRejected, noVirtualCD(members)}}
	}
	var refused []string
	for i, m := range ranked {
		// Not heartbeated: the SDK sends the first heartbeat of an attempt at
		// once but batches the next ones, and the one before the reset must
		// reach the server (see reimage).
		r.progress.Step = "mount the installer in " + why[i]
		err := r.insertInto(m, image)
		var sr *slotRefused
		if !errors.As(err, &sr) {
			return err
		}
		refused = append(refused, m.URI+": "+describe(sr.err))
	}
	return &stepError{"insert the virtual media " + bmcclient.RedactURL(image), &failure{kindRejected,
		"every virtual CD refused the image: " + strings.Join(refused, "; ")}}
}

// slotRefused: this member does not take the image; another may.
type slotRefused struct{ err error }

func (e *slotRefused) Error() string { return describe(e.err) }

// insertLevels are the InsertMedia parameters to try, fewest last: XCC and
// Supermicro X11 refuse TransferProtocolType or WriteProtected.
func insertLevels(image string) []bmcclient.InsertParams {
	yes := true
	full := bmcclient.InsertParams{Image: image, Inserted: &yes, WriteProtected: &yes, TransferProtocolType: transferProtocol(image)}
	noProto := full
	noProto.TransferProtocolType = ""
	return []bmcclient.InsertParams{full, noProto, {Image: image}}
}

func (r *run) insertInto(m bmcclient.MediaInfo, image string) error {
	if occupied(m) { // possibly stale (iDRAC): an eject refused as needless, or a flag that stays, is fine: the insert's read-back judges
		if err := r.eject(m, "eject what is in "+m.URI); err != nil && classify(err) != kindRejected && classify(err) != kindNoEffect {
			return err
		}
	}
	var last error
	for _, p := range insertLevels(image) {
		var task string
		err := r.act("insert the virtual media "+bmcclient.RedactURL(image)+" into "+m.URI, func() (bool, error) {
			cur, err := r.medium(m)
			return err == nil && cur.Inserted && r.holds(cur, image), err
		}, func() error {
			return r.mediaAction("insert the virtual media into "+m.URI, func(ctx context.Context) (err error) {
				task, err = r.c.InsertMedia(ctx, m, p)
				return err
			})
		})
		switch {
		case err == nil:
			if err := r.waitTask("wait for the virtual media to mount", task, kindRejected); err != nil {
				return err
			}
			return r.awaitMedium(m, image, accepted(task))
		case refusedSlot(err):
			return &slotRefused{err}
		case bmcclient.StatusOf(err) == http.StatusBadRequest:
			last = err // try fewer parameters
		default:
			return err
		}
	}
	return &slotRefused{last}
}

// refusedSlot: the member does not take this request at all (no such
// action, method not allowed, not found), so another member may.
func refusedSlot(err error) bool {
	var se *bmcclient.StatusError
	if !errors.As(err, &se) {
		return false
	}
	switch se.Status {
	case http.StatusMethodNotAllowed, http.StatusNotFound, http.StatusNotImplemented:
		return true
	}
	// the message id may sit in the code or in @Message.ExtendedInfo
	body := err.Error()
	return strings.Contains(body, "MissingAction") || strings.Contains(body, "ActionNotSupported")
}

// eject empties m unless it already is.
func (r *run) eject(m bmcclient.MediaInfo, step string) error {
	var task string
	err := r.act(step, func() (bool, error) {
		cur, err := r.medium(m)
		return err == nil && !occupied(cur), err
	}, func() error {
		return r.mediaAction(step, func(ctx context.Context) (err error) {
			task, err = r.c.EjectMedia(ctx, m)
			return err
		})
	})
	if err != nil {
		return err
	}
	if err := r.waitTask("wait for the virtual media to eject", task, kindRejected); err != nil {
		return err
	}
	return r.awaitMedium(m, "", accepted(task))
}

// awaitMedium reads m back until it holds image ("": empty), within
// MediaTimeout: vendors lag (iDRAC shows an ejected image once more). An
// image that never mounts is typically one the BMC cannot fetch.
func (r *run) awaitMedium(m bmcclient.MediaInfo, image string, ans bmcclient.Accepted) error {
	var cur bmcclient.MediaInfo
	err := r.waitUntil("read back the virtual media "+m.URI, r.a.mediaTimeout(), func() (bool, error) {
		var err error
		cur, err = r.medium(m)
		if err == nil && image != "" && cur.Inserted && r.judge(cur, image) == imageOther {
			// Conclusive: the slot was emptied before the insert, so
			// waiting cannot turn another image into ours.
			return false, &stepError{"mount the installer", &failure{kindWrongImage, fmt.Sprintf(
				"the BMC shows a different image in %s: %s (asked for %s; %s%s)", m.URI, shownImage(cur), bmcclient.RedactURL(image), ans, r.redirectNote(image))}}
		}
		return err == nil && r.mediumHolds(cur, image), err
	})
	if !errors.Is(err, errWaitLimit) {
		return err
	}
	shown := fmt.Sprintf("Image %q, Inserted %t", bmcclient.RedactURL(cur.Image), cur.Inserted)
	if cur.ImageName != "" {
		shown += fmt.Sprintf(", ImageName %q", cur.ImageName)
	}
	if image == "" {
		return &stepError{"eject the virtual media from " + m.URI, &failure{kindNoEffect, fmt.Sprintf(
			"the BMC accepted the eject (%s) but the slot still shows %s after %s", ans, shown, r.a.mediaTimeout())}}
	}
	return &stepError{"mount the installer", &failure{kindNoEffect, fmt.Sprintf(
		"the installer was not mounted: the BMC accepted %s for %s (%s) but the slot shows %s after %s; check that the BMC can reach the image server",
		bmcclient.RedactURL(image), m.URI, ans, shown, r.a.mediaTimeout())}}
}

// mediumHolds: m shows image inserted, or nothing when image is "".
func (r *run) mediumHolds(m bmcclient.MediaInfo, image string) bool {
	if image == "" {
		return !occupied(m)
	}
	return m.Inserted && r.holds(m, image)
}

func (r *run) medium(m bmcclient.MediaInfo) (bmcclient.MediaInfo, error) {
	return read(r, "read the virtual media "+m.URI, func(ctx context.Context) (bmcclient.MediaInfo, error) { return r.c.Medium(ctx, m) })
}

// waitTask waits for a media action's task, for at most PowerOnTimeout.
func (r *run) waitTask(step, monitor string, failed kind) error {
	task := monitor
	err := r.waitUntil(step, r.a.powerOnTimeout(), func() (bool, error) {
		done, err := r.checkTask(&monitor, failed)
		return done || monitor == "", err
	})
	if errors.Is(err, errWaitLimit) {
		return &stepError{step, &failure{kindNoEffect, fmt.Sprintf("the task %s did not complete within %s", task, r.a.powerOnTimeout())}}
	}
	return err
}

// virtualMedia lists every member, each request retried on its own: a
// listing is many GETs, and one flaky answer must not fail them all.
func (r *run) virtualMedia() ([]bmcclient.MediaInfo, error) {
	colls, err := read(r, "find the virtual media", r.c.MediaCollections)
	if err != nil {
		return nil, err
	}
	var out []bmcclient.MediaInfo
	for _, coll := range colls {
		uris, err := read(r, "list "+coll.URI, func(ctx context.Context) ([]string, error) { return r.c.MediaMembers(ctx, coll) })
		if err != nil {
			return nil, err
		}
		for _, uri := range uris {
			m, err := r.medium(bmcclient.MediaInfo{URI: uri, Location: coll.Location})
			if err != nil {
				return nil, err
			}
			out = append(out, m)
		}
	}
	return out, nil
}

// occupied: something is (or the BMC claims something is) in the drive.
func occupied(m bmcclient.MediaInfo) bool { return m.Inserted || m.Image != "" }

// cdTarget: a boot target that boots the virtual CD (see ChooseBootTarget).
func cdTarget(t string) bool { return t == "Cd" || t == "UsbCd" }
