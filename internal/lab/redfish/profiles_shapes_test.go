package redfish

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// Each shape profile shows the same image the way its vendor shape does.
func TestImageShapes(t *testing.T) {
	now := time.Now()
	m := media{image: "http://u:p@images.lab:80/isos/rackroll-4.2.0.iso", inserted: true, insertedAt: now}
	cases := map[string][2]string{
		"dmtf":            {"http://images.lab:80/isos/rackroll-4.2.0.iso", "rackroll-4.2.0.iso"},
		"shape-filename":  {"rackroll-4.2.0.iso", "rackroll-4.2.0.iso"},
		"shape-imagename": {"", "rackroll-4.2.0.iso"},
		"shape-noport":    {"http://images.lab/isos/rackroll-4.2.0.iso", "rackroll-4.2.0.iso"},
		"shape-hostcase":  {"http://IMAGES.LAB:80/isos/rackroll-4.2.0.iso", "rackroll-4.2.0.iso"},
		"shape-percent":   {"http://images.lab:80/isos/rackroll%2D4%2E2%2E0%2Eiso", "rackroll-4.2.0.iso"},
		"shape-late":      {"", ""},
		"shape-redirect":  {"http://images.lab:80/isos/rackroll-4.2.0.iso", "rackroll-4.2.0.iso"}, // nothing redirected
	}
	for name, want := range cases {
		p, ok := LookupProfile(name)
		assert.True(t, ok, name)
		image, n := p.shownImage(m, now)
		assert.Equal(t, want, [2]string{image, n}, name)
	}
	late, _ := LookupProfile("shape-late")
	image, _ := late.shownImage(m, now.Add(shapeLateDelay))
	assert.Equal(t, "http://images.lab:80/isos/rackroll-4.2.0.iso", image, "the late shape shows the image after its delay")

	m.fetched = "http://mirror.lab:8080/pool/rackroll-4.2.0.iso"
	redirect, _ := LookupProfile("shape-redirect")
	image, n := redirect.shownImage(m, now)
	assert.Equal(t, [2]string{m.fetched, "rackroll-4.2.0.iso"}, [2]string{image, n}, "the URL the redirect led to")
	dmtf, _ := LookupProfile("dmtf")
	image, _ = dmtf.shownImage(m, now)
	assert.Equal(t, "http://images.lab:80/isos/rackroll-4.2.0.iso", image, "other profiles show the URL they were given")
}
