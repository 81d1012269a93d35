package model

import (
	"encoding/hex"
	"net/url"
	"slices"
	"strings"

	"github.com/rackroll/rackroll/internal/firmware"
)

// validate checks the images: section: a template the BMCs can fetch with
// the version in it, and checksums that are SHA-256 of known versions.
func (s ImagesSpec) validate(e *ValidationError) {
	if t := s.URLTemplate; t != "" {
		u, err := url.Parse(strings.ReplaceAll(t, "{version}", "0"))
		switch {
		case err != nil || u.Host == "" || !slices.Contains([]string{"http", "https", "nfs", "cifs"}, strings.ToLower(u.Scheme)):
			e.Add("images.urlTemplate", t, "must be an absolute http, https, nfs or cifs URL")
		case !strings.Contains(t, "{version}"):
			e.Add("images.urlTemplate", t, "must contain {version}, replaced by the target version")
		}
	}
	validateBootMode(e, "images.bootMode", s.BootMode)
	for _, v := range sortedKeys(s.SHA256) {
		field := "images.sha256." + v
		if _, err := ParseVersion(v); err != nil {
			e.Add(field, v, "the key must be a runtime version: "+err.Error())
		}
		if b, err := hex.DecodeString(s.SHA256[v]); err != nil || len(b) != 32 {
			e.Add(field, s.SHA256[v], "must be a SHA-256 checksum: 64 hexadecimal digits")
		}
	}
	for _, v := range sortedKeys(s.Firmware) {
		field := "images.firmware." + v
		if _, err := ParseVersion(v); err != nil {
			e.Add(field, v, "the key must be a runtime version: "+err.Error())
		}
		for _, p := range s.Firmware[v].Validate() {
			e.Add(joinField(field, p.Field), p.Value, p.Message)
		}
	}
}

// FirmwareBaseline is the firmware runtime version v requires; nil when
// the inventory declares none for v.
func (s ImagesSpec) FirmwareBaseline(v string) firmware.Baseline { return s.Firmware[v] }
