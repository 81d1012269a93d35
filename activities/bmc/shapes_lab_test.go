package bmc

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/lab/faults"
	"github.com/rackroll/rackroll/internal/lab/redfish"
	"github.com/rackroll/rackroll/internal/lab/redfish/redfishtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every way the lab's BMCs show the same image (one shape per profile) is
// judged mounted: the reimage resets once into the installer and the eject
// finds the image to eject. The URL names the default port so the noport
// shape drops it.
func TestLabImageShapes(t *testing.T) {
	const image = "http://images.lab:80/rackroll-4.2.0.iso"
	for _, shape := range []string{redfish.ShapeFileName, redfish.ShapeImageName, redfish.ShapeNoPort,
		redfish.ShapeHostCase, redfish.ShapePercent, redfish.ShapeLate} { // ShapeRedirect: TestLabRedirectedImage
		t.Run(shape, func(t *testing.T) {
			l := newLab(t, redfishtest.Profile("shape-"+shape))
			val, err := l.env.ExecuteActivity(l.a.Reimage, ReimageInput{Endpoint: l.ep, ImageURL: image, Version: "4.2.0"})
			require.NoError(t, err)
			var res ReimageResult
			require.NoError(t, val.Get(&res))
			assert.True(t, res.Reimaged)
			assert.Equal(t, 1, l.settled("4.2.0").ReimageCount)
			assert.Equal(t, 1, l.count(events.MediaInsert), "one insert: the shape was read as the image")

			_, err = l.env.ExecuteActivity(l.a.EjectMedia, EjectInput{Endpoint: l.ep, ImageURL: image})
			require.NoError(t, err)
			assert.Equal(t, 1, l.count(events.MediaEject), "the eject recognised the image in its shape")
		})
	}
}

// A BMC that shows another image after the insert fails the reimage at
// once, typed, naming the image it shows, and nothing is reset.
func TestLabWrongImageFailsNamingIt(t *testing.T) {
	l := newLab(t)
	l.bmc.SetFault(faults.MediaWrong, 0)
	start := time.Now()
	_, err := l.reimage("4.2.0")
	ae := appError(t, err, ErrTypeWrongImage, false)
	assert.Contains(t, ae.Error(), "the BMC shows a different image")
	assert.Contains(t, ae.Error(), "http://images.elsewhere.example/isos/ubuntu-22.04-live-server.iso")
	assert.Contains(t, ae.Error(), "asked for http://images.lab/rackroll-4.2.0.iso")
	assert.Less(t, time.Since(start), 20*time.Second, "it does not wait out MediaTimeout (30s)")
	assert.Zero(t, l.count(events.Reset), "no reset into an image that is not the installer")
}

// shape-redirect shows the URL the image server's redirect led to: the
// worker asks the image server the same and the reimage and eject go
// through; without the redirect behind it that URL is another host.
func TestLabRedirectedImage(t *testing.T) {
	mirror := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	t.Cleanup(mirror.Close)
	site := httptest.NewServer(http.RedirectHandler(mirror.URL+"/isos/rackroll-4.2.0.iso", http.StatusFound))
	t.Cleanup(site.Close)
	image := site.URL + "/rackroll-4.2.0.iso"
	l := newLab(t, redfishtest.Profile("shape-redirect"), func(c *redfish.Config) {
		c.Redirect = func(string) string { return mirror.URL + "/isos/rackroll-4.2.0.iso" }
	})
	l.a.ImageClient = http.DefaultClient
	val, err := l.env.ExecuteActivity(l.a.Reimage, ReimageInput{Endpoint: l.ep, ImageURL: image, Version: "4.2.0"})
	require.NoError(t, err)
	var res ReimageResult
	require.NoError(t, val.Get(&res))
	assert.Equal(t, 1, l.settled("4.2.0").ReimageCount)
	_, err = l.env.ExecuteActivity(l.a.EjectMedia, EjectInput{Endpoint: l.ep, ImageURL: image})
	require.NoError(t, err)
	assert.Equal(t, 1, l.count(events.MediaEject))

	l = newLab(t, redfishtest.Profile("shape-redirect"), func(c *redfish.Config) {
		c.Redirect = func(string) string { return mirror.URL + "/isos/rackroll-4.2.0.iso" }
	})
	l.a.ImageClient = http.DefaultClient
	_, err = l.env.ExecuteActivity(l.a.Reimage, ReimageInput{Endpoint: l.ep, ImageURL: mirror.URL + "/rackroll-4.2.0.iso", Version: "4.2.0"})
	ae := appError(t, err, ErrTypeWrongImage, false)
	assert.Contains(t, ae.Error(), "the image server does not redirect it")
}
