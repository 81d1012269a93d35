package redfish

import (
	"net/url"
	"strings"
	"time"
)

// Image shapes: how a profile shows the image it holds in Image and
// ImageName. rackroll must judge each the same image (activities/bmc
// judgeImage; docs/evidence.md lists where each was learnt).
const (
	ShapeURL       = ""          // Image is the URL as sent, ImageName its file name
	ShapeFileName  = "filename"  // Image and ImageName are the file name only
	ShapeImageName = "imagename" // Image is null; only ImageName names the file
	ShapeNoPort    = "noport"    // a default port (:80, :443) in the URL is dropped
	ShapeHostCase  = "hostcase"  // the host is shown upper-cased
	ShapePercent   = "percent"   // the path is shown percent-encoded
	ShapeLate      = "late"      // Inserted true with Image and ImageName null for ImageDelay after the insert
	ShapeRedirect  = "redirect"  // Image is the URL the image server's redirects led to
)

// shapeLateDelay is how long ShapeLate shows no image; long enough that a
// read-back that trusted Inserted alone would pass before it.
const shapeLateDelay = 1500 * time.Millisecond

func init() {
	for _, s := range []string{ShapeFileName, ShapeImageName, ShapeNoPort, ShapeHostCase, ShapePercent, ShapeLate, ShapeRedirect} {
		register("shape-"+s, func() Profile {
			p := dmtf()
			p.Name, p.ImageShape = "shape-"+s, s
			if s == ShapeLate {
				p.ImageDelay = shapeLateDelay
			}
			return p
		})
	}
}

// shownImage is what the profile shows in Image and ImageName ("" null)
// for a drive holding m, now.
func (p *Profile) shownImage(m media, now time.Time) (image, name string) {
	if m.image == "" {
		return "", ""
	}
	image, name = redactURL(m.image), pathBase(m.image)
	if p.ImageShape == ShapeRedirect && m.fetched != "" {
		image, name = redactURL(m.fetched), pathBase(m.fetched)
	}
	u, err := url.Parse(image)
	if err != nil {
		return image, name
	}
	switch p.ImageShape {
	case ShapeFileName:
		return name, name
	case ShapeImageName:
		return "", name
	case ShapeNoPort:
		if port := u.Port(); (port == "80" && u.Scheme == "http") || (port == "443" && u.Scheme == "https") {
			u.Host = u.Hostname()
		}
		return u.String(), name
	case ShapeHostCase:
		u.Host = strings.ToUpper(u.Host)
		return u.String(), name
	case ShapePercent:
		u.RawPath = percentAll(u.Path)
		return u.String(), name
	case ShapeLate:
		if now.Before(m.insertedAt.Add(p.ImageDelay)) {
			return "", ""
		}
	}
	return image, name
}

// percentAll escapes every byte of p but letters, digits and slashes, as
// some firmware does (url.PathEscape leaves '-' and '.' as they are).
func percentAll(p string) string {
	var b strings.Builder
	for _, seg := range strings.SplitAfter(p, "/") {
		for i := 0; i < len(seg); i++ {
			c := seg[i]
			if c == '/' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9') {
				b.WriteByte(c)
				continue
			}
			b.WriteString("%" + strings.ToUpper(hex2(c)))
		}
	}
	return b.String()
}

func hex2(c byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[c>>4], digits[c&15]})
}
