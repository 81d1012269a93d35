package redfish

import (
	"net/http"
	"net/url"
	"path"
	"regexp"
	"strings"
	"time"

	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/lab/faults"
)

// media is what one virtual media drive holds.
type media struct {
	image          string
	inserted       bool
	writeProtected bool
	protocol       string
	insertedAt     time.Time // for Profile.ImageDelay
	fetched        string    // the URL the fetch ended at after redirects ("": image)
	// stale is shown once, on the next read after an eject, by profiles
	// whose BMC reports the ejected image until re-read (iDRAC).
	stale *media
}

// imageName matches the lab's installer images: .../rackroll-<version>.iso
var imageName = regexp.MustCompile(`^rackroll-([0-9A-Za-z][0-9A-Za-z.+_~-]*)\.iso$`)

// imageVersion returns the version an installer image installs, or "" when
// the image is not one.
func imageVersion(image string) string {
	m := imageName.FindStringSubmatch(pathBase(image))
	if m == nil {
		return ""
	}
	return m[1]
}

// redactURL drops user info from an image URL before it reaches the event
// log or a response.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		return s
	}
	u.User = nil
	return u.String()
}

// wrongImage is what faults.MediaWrong mounts instead of the image asked
// for: another file on another host, and no installer.
const wrongImage = "http://images.elsewhere.example/isos/ubuntu-22.04-live-server.iso"

var protocols = map[string]string{"http": "HTTP", "https": "HTTPS", "nfs": "NFS", "cifs": "CIFS", "smb": "CIFS"}

// insertMediaLocked mounts image in slot. A drive that already holds an
// image refuses with 409 ResourceInUse: eject first, as DSP2046 asks. An
// upload slot takes no URL, and an ISO needs a CD-capable slot.
func (b *BMC) insertMediaLocked(slot slotRef, image string, inserted, writeProtected bool) *apiError {
	if slot.Upload {
		return &apiError{http.StatusBadRequest, "ActionNotSupported",
			"The virtual media " + slot.ID + " takes uploaded images only; mount a URL in another slot."}
	}
	if image == "" {
		return &apiError{http.StatusBadRequest, "ActionParameterMissing", "The action InsertMedia requires the parameter Image."}
	}
	u, err := url.Parse(image)
	if err != nil || u.Host == "" || protocols[strings.ToLower(u.Scheme)] == "" {
		return &apiError{http.StatusBadRequest, "ActionParameterValueFormatError",
			"The value of Image is not an absolute http, https, nfs or cifs URL."}
	}
	if strings.HasSuffix(strings.ToLower(u.Path), ".iso") && !slot.cdCapable() {
		return &apiError{http.StatusBadRequest, "ActionParameterValueError",
			"The virtual media " + slot.ID + " supports " + strings.Join(slot.MediaTypes, ", ") + "; an ISO image needs a CD or DVD slot."}
	}
	d := &b.drives[slot.Drive]
	if d.image != "" {
		return &apiError{http.StatusConflict, "ResourceInUse",
			"The virtual media " + slot.ID + " already holds " + redactURL(d.image) + "; eject it before inserting another image."}
	}
	if b.faultActiveLocked(faults.MediaUnmount) {
		// Accepted, then the fetch fails: the slot stays empty.
		b.emitLocked(events.Fault, map[string]any{"kind": string(faults.MediaUnmount), "image": redactURL(image), "slot": slot.uri})
		return nil
	}
	if b.faultActiveLocked(faults.MediaWrong) {
		// Accepted, and the slot shows another image: what an operator
		// left mounted from the BMC's console, or a stale share.
		image = wrongImage
		b.emitLocked(events.Fault, map[string]any{"kind": string(faults.MediaWrong), "image": image, "slot": slot.uri})
	} else if b.cfg.Fetchable != nil && !b.cfg.Fetchable(image) {
		// The same, because the image server has no such image.
		b.emitLocked(events.Fault, map[string]any{"kind": "image-missing", "image": redactURL(image), "slot": slot.uri})
		return nil
	}
	*d = media{image: image, inserted: inserted, writeProtected: writeProtected, protocol: protocols[strings.ToLower(u.Scheme)], insertedAt: b.clk.Now()}
	if b.cfg.Redirect != nil {
		d.fetched = b.cfg.Redirect(image)
	}
	detail := map[string]any{"image": redactURL(image), "slot": slot.uri}
	if v := imageVersion(image); v != "" {
		detail["version"] = v
	}
	b.emitLocked(events.MediaInsert, detail)
	return nil
}

// ejectMediaLocked unmounts; ejecting an empty drive is a no-op. Ejecting
// the drive an installer reads from breaks the install (breakInstallLocked).
func (b *BMC) ejectMediaLocked(slot slotRef) {
	d := &b.drives[slot.Drive]
	if d.image == "" {
		return
	}
	old := *d
	*d = media{}
	if b.prof.StaleEject {
		old.stale = nil
		d.stale = &old
	}
	b.emitLocked(events.MediaEject, map[string]any{"image": redactURL(old.image), "slot": slot.uri})
	if b.phase == phaseReimaging && b.install == slot.Drive {
		b.breakInstallLocked()
	}
}

// breakInstallLocked: a real installer (Anaconda, Subiquity, a live ISO
// installing to disk) reads its payload from the CD while it writes the
// disk. Losing the CD mid-way leaves a partitioned, half-written disk and
// the installer at an error screen: the machine stays on with no bootable
// OS (the old one is gone too) until an install completes.
func (b *BMC) breakInstallLocked() {
	b.stopTimerLocked()
	b.reimageFailed = true
	b.emitLocked(events.ReimageFailed, map[string]any{"version": b.reimageTo, "reason": "the installer media was ejected before the install finished"})
	b.reimageTo = ""
	b.phase = phaseNoOS
	b.finishTaskLocked(taskException, "The install failed: its media was ejected.")
	b.changedLocked()
}

// bootImageLocked is the installer the virtual-CD boot target finds: the
// first slot, in collection order, that the firmware boots from and whose
// drive holds an inserted installer image.
func (b *BMC) bootImageLocked() (drive int, version string, ok bool) {
	for _, s := range b.slots() {
		d := b.drives[s.Drive]
		if !s.Boots || !s.cdCapable() || !d.inserted || d.image == "" {
			continue
		}
		if v := imageVersion(d.image); v != "" {
			return s.Drive, v, true
		}
	}
	return 0, "", false
}

// pathBase is the file name of an image URL (ImageName).
func pathBase(image string) string {
	if u, err := url.Parse(image); err == nil && u.Path != "" {
		return path.Base(u.Path)
	}
	return path.Base(image)
}
