package lab

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/rackroll/rackroll/activities/image"
	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/stretchr/testify/require"
)

// The image activity against the lab's image server: a present image
// answers HEAD with its size and its checksum matches ImageContent; a
// missing one is 404, and the BMCs cannot fetch it either. Every request
// is in the event log.
func TestImageServerAnswersTheImageActivity(t *testing.T) {
	log := events.New(nil)
	s, err := startImageServer(log, []string{"4.3.0"})
	require.NoError(t, err)
	t.Cleanup(func() { s.srv.Close() })
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
	require.Equal(t, 5, log.Count(events.ImageRequest, ""), "HEAD+GET (checksum), HEAD, HEAD+GET (checksum): %v", log.Events())
}
