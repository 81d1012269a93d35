package redfish

import (
	"net/http"
	"net/url"
	"path"
	"regexp"
	"strings"

	"github.com/rackroll/rackroll/internal/lab/events"
)

// media is the one virtual CD drive, reachable under the System and the
// Manager.
type media struct {
	image          string
	inserted       bool
	writeProtected bool
	protocol       string
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

var protocols = map[string]string{"http": "HTTP", "https": "HTTPS", "nfs": "NFS", "cifs": "CIFS", "smb": "CIFS"}

// insertMediaLocked mounts image. A drive that already holds an image
// refuses with 409 ResourceInUse: eject first, as DSP2046 asks.
func (b *BMC) insertMediaLocked(image string, inserted, writeProtected bool) *apiError {
	if image == "" {
		return &apiError{http.StatusBadRequest, "ActionParameterMissing", "The action InsertMedia requires the parameter Image."}
	}
	u, err := url.Parse(image)
	if err != nil || u.Host == "" || protocols[strings.ToLower(u.Scheme)] == "" {
		return &apiError{http.StatusBadRequest, "ActionParameterValueFormatError",
			"The value of Image is not an absolute http, https, nfs or cifs URL."}
	}
	if b.media.image != "" {
		return &apiError{http.StatusConflict, "ResourceInUse",
			"The virtual CD already holds " + redactURL(b.media.image) + "; eject it before inserting another image."}
	}
	b.media = media{image: image, inserted: inserted, writeProtected: writeProtected, protocol: protocols[strings.ToLower(u.Scheme)]}
	detail := map[string]any{"image": redactURL(image)}
	if v := imageVersion(image); v != "" {
		detail["version"] = v
	}
	b.emitLocked(events.MediaInsert, detail)
	return nil
}

// ejectMediaLocked unmounts; ejecting an empty drive is a no-op.
func (b *BMC) ejectMediaLocked() {
	if b.media.image == "" {
		return
	}
	b.emitLocked(events.MediaEject, map[string]any{"image": redactURL(b.media.image)})
	b.media = media{}
}

// pathBase is the file name of an image URL (ImageName).
func pathBase(image string) string {
	if u, err := url.Parse(image); err == nil && u.Path != "" {
		return path.Base(u.Path)
	}
	return path.Base(image)
}
