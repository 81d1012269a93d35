package bmc

import (
	"net/url"
	"path"
	"strings"

	"github.com/rackroll/rackroll/activities/bmc/bmcclient"
)

// imageMatch is what a virtual-media member shows against the image asked
// for (docs/evidence.md, "What a BMC shows for the inserted image").
type imageMatch int

const (
	imageAbsent  imageMatch = iota // nothing shown and not inserted
	imagePending                   // Inserted, but no Image or ImageName yet: keep waiting (bounded)
	imageSame                      // the image asked for, in one of the shapes BMCs show it
	imageOther                     // a different image: another file, another host
)

// judgeImage is the one rule for "the BMC holds the image": the same
// image, as real BMCs show it, and never a different one. Shapes accepted:
//   - Image is the URL asked for, compared as a URL (sameURL), not a string.
//   - Image is the file name only (no scheme): reported in issue 35 for
//     BMCs that echo only the name; DMTF's VirtualMedia schema calls
//     ImageName "the current image name" and Image "the URI of the
//     location of the selected image", and not every firmware keeps the two
//     apart. The file name must match; the host cannot be checked.
//   - Image empty, ImageName only: seen in sushy-tools' VirtualMedia
//     template (image_url and image_name are separate fields, either may
//     be empty) and openUBMC's VirtualMedia CD resource (ImageName
//     read-only beside Image).
//   - Inserted true with neither shown: a BMC still fetching (issue 35);
//     pending, never success.
func judgeImage(m bmcclient.MediaInfo, want string) imageMatch {
	shown := strings.TrimSpace(m.Image)
	switch {
	case strings.Contains(shown, "://"):
		return matchIf(sameURL(shown, want))
	case shown != "":
		return matchIf(sameFile(shown, want))
	case strings.TrimSpace(m.ImageName) != "":
		return matchIf(sameFile(m.ImageName, want))
	case m.Inserted:
		return imagePending
	}
	return imageAbsent
}

func matchIf(same bool) imageMatch {
	if same {
		return imageSame
	}
	return imageOther
}

// sameURL compares two image URLs as RFC 3986 says equal URLs may differ:
// scheme and host case, a default port written or dropped, percent-encoded
// path characters; user info is never shown back. Query strings compare
// as sent (a different query can be a different image).
func sameURL(a, b string) bool {
	ua, errA := url.Parse(strings.TrimSpace(a))
	ub, errB := url.Parse(strings.TrimSpace(b))
	if errA != nil || errB != nil {
		return false
	}
	return strings.EqualFold(ua.Scheme, ub.Scheme) &&
		strings.EqualFold(ua.Hostname(), ub.Hostname()) &&
		effectivePort(ua) == effectivePort(ub) &&
		cleanPath(ua.Path) == cleanPath(ub.Path) &&
		ua.RawQuery == ub.RawQuery
}

// effectivePort is u's port, or the scheme's default when none is written.
func effectivePort(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	switch strings.ToLower(u.Scheme) {
	case "http":
		return "80"
	case "https":
		return "443"
	}
	return ""
}

// cleanPath: url.Parse has already decoded percent-escapes into Path.
func cleanPath(p string) string {
	if p == "" {
		return "/"
	}
	return p
}

// sameFile compares a file name a BMC shows (possibly percent-encoded, or
// with a directory) with the file name of the image URL asked for.
func sameFile(shown, want string) bool {
	name := strings.TrimSpace(shown)
	if dec, err := url.PathUnescape(name); err == nil {
		name = dec
	}
	u, err := url.Parse(strings.TrimSpace(want))
	if err != nil || u.Path == "" {
		return false
	}
	return path.Base(name) == path.Base(u.Path)
}

// shownImage is what m shows, for messages (user info removed).
func shownImage(m bmcclient.MediaInfo) string {
	switch {
	case m.Image != "":
		return bmcclient.RedactURL(m.Image)
	case m.ImageName != "":
		return "ImageName " + m.ImageName
	}
	return "no image"
}
