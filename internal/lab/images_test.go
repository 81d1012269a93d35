package lab

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"testing"
	"time"

	"github.com/rackroll/rackroll/activities/image"
	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The image activity against the lab's image server: a present image
// answers HEAD with its size and its checksum matches ImageContent; a
// missing one is 404, and the BMCs cannot fetch it either. Every request
// is in the event log.
func TestImageServerAnswersTheImageActivity(t *testing.T) {
	log := events.New(nil)
	s, err := startImageServer(log, []string{"4.3.0"}, false)
	require.NoError(t, err)
	t.Cleanup(s.close)
	a := &image.Activities{}
	ctx := context.Background()

	sum := sha256.Sum256(ImageContent("4.2.0"))
	c, err := a.CheckImage(ctx, image.CheckInput{URL: s.url + "/rackroll-4.2.0.iso", SHA256: hex.EncodeToString(sum[:])})
	require.NoError(t, err)
	require.True(t, c.OK, c.Answer)
	require.Contains(t, c.Answer, "200 OK")
	require.True(t, s.fetchable(s.url+"/rackroll-4.2.0.iso"))

	c, err = a.CheckImage(ctx, image.CheckInput{URL: s.url + "/rackroll-4.3.0.iso"})
	require.NoError(t, err)
	require.False(t, c.OK)
	require.Equal(t, "404 Not Found", c.Answer)
	require.False(t, s.fetchable(s.url+"/rackroll-4.3.0.iso"), "a BMC cannot fetch what is not there")

	c, err = a.CheckImage(ctx, image.CheckInput{URL: s.url + "/rackroll-4.2.0.iso", SHA256: hex.EncodeToString(make([]byte, 32))})
	require.NoError(t, err)
	require.False(t, c.OK, "another image's checksum")

	require.True(t, s.fetchable("http://images.example/rackroll-4.3.0.iso"), "another server's images are not the lab's to judge")
	// The server logs a GET once its body is written, which may be just
	// after the client has read it.
	require.Eventually(t, func() bool { return log.Count(events.ImageRequest, "") == 5 }, 2*time.Second, 10*time.Millisecond,
		"HEAD+GET (checksum), HEAD, HEAD+GET (checksum): %v", log.Events())
}

func TestImageServerServesFirmwarePackages(t *testing.T) {
	s, err := startImageServer(events.New(nil), nil, false)
	require.NoError(t, err)
	t.Cleanup(s.close)
	for path, want := range map[string]int{
		"/firmware/bios-1.14.0.exe":        http.StatusOK,
		"/firmware/dell/BMC-7.10.30.00.d9": http.StatusOK,
		"/firmware/ubuntu.iso":             http.StatusNotFound,
		"/firmware/bios.exe":               http.StatusNotFound,
	} {
		resp, err := http.Get(s.url + path)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, want, resp.StatusCode, path)
		assert.Equal(t, want == http.StatusOK, s.fetchable(s.url+path), path)
	}
}

// Behind a redirect, the image URL answers 302 to the mirror, which serves
// the image; the image check follows it, BMCs fetch from the mirror, and a
// missing image is missing there too.
func TestImageServerBehindARedirect(t *testing.T) {
	log := events.New(nil)
	s, err := startImageServer(log, []string{"4.3.0"}, true)
	require.NoError(t, err)
	t.Cleanup(s.close)
	c, err := (&image.Activities{}).CheckImage(context.Background(), image.CheckInput{URL: s.url + "/rackroll-4.2.0.iso"})
	require.NoError(t, err)
	require.True(t, c.OK, c.Answer)
	require.Equal(t, s.mirror+"/rackroll-4.2.0.iso", s.finalURL(s.url+"/rackroll-4.2.0.iso"))
	require.NotEqual(t, s.url, s.mirror, "another host:port")
	require.True(t, s.fetchable(s.url+"/rackroll-4.2.0.iso"))
	require.False(t, s.fetchable(s.url+"/rackroll-4.3.0.iso"))
	require.Equal(t, "http://images.example/x.iso", s.finalURL("http://images.example/x.iso"))
	require.Equal(t, 2, log.Count(events.ImageRequest, ""), "the 302 and the mirror's answer")
}
