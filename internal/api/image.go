package api

// ImageCheck is what the image preflight saw of a runtime image before any
// server was touched (docs/behaviour-upgrade.md#guards).
type ImageCheck struct {
	URL string `json:"url"`
	// OK: the URL answered 2xx (and, with a checksum, its content matched).
	OK bool `json:"ok"`
	// Answer is what the image server said ("200 OK, 734003200 bytes",
	// "404 Not Found") or why nothing answered.
	Answer string `json:"answer"`
	// SHA256 is the content's checksum, read when the inventory gives one.
	SHA256 string `json:"sha256,omitempty"`
}

// Refusal is the preflight's refusal of an upgrade to this image, or ""
// when the image is fine.
func (c ImageCheck) Refusal() string {
	if c.OK {
		return ""
	}
	return "the runtime image " + c.URL + " is not usable: " + c.Answer +
		"; no server was touched (put the image there or fix images.urlTemplate, then start the upgrade again)"
}
