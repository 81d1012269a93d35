package bmc

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/activities/bmc/bmcclient"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// imageServers is a site's image URL behind redirects: /hops/N/x.iso
// answers 302 to /hops/N-1/x.iso on the mirror, /hops/0/x.iso serves it;
// the mirror refuses HEAD, as some object stores do.
func imageServers(t *testing.T) (site, mirror *httptest.Server) {
	mirror = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodHead {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		hops(w, r, mirror.URL)
	}))
	site = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hops(w, r, mirror.URL) }))
	t.Cleanup(site.Close)
	t.Cleanup(mirror.Close)
	return site, mirror
}

func hops(w http.ResponseWriter, r *http.Request, mirror string) {
	var n int
	var file string
	if _, err := fmt.Sscanf(strings.ReplaceAll(r.URL.Path, "/", " "), " hops %d %s", &n, &file); err != nil {
		http.NotFound(w, r)
		return
	}
	if n == 0 {
		w.Write([]byte("installer"))
		return
	}
	http.Redirect(w, r, mirror+"/hops/"+strconv.Itoa(n-1)+"/"+file, http.StatusFound)
}

func TestRedirectsOfFollowsTheChainBounded(t *testing.T) {
	site, mirror := imageServers(t)
	ctx := context.Background()
	chain, err := redirectsOf(ctx, http.DefaultClient, site.URL+"/hops/2/rackroll-4.2.0.iso")
	require.NoError(t, err)
	assert.Equal(t, []string{mirror.URL + "/hops/1/rackroll-4.2.0.iso", mirror.URL + "/hops/0/rackroll-4.2.0.iso"}, chain,
		"HEAD refused by the mirror: a one-byte GET instead")

	chain, err = redirectsOf(ctx, http.DefaultClient, site.URL+"/hops/0/rackroll-4.2.0.iso")
	require.NoError(t, err)
	assert.Empty(t, chain, "no redirect")

	chain, err = redirectsOf(ctx, http.DefaultClient, site.URL+"/hops/9/rackroll-4.2.0.iso")
	require.ErrorContains(t, err, "more than 5 redirects")
	assert.Len(t, chain, maxRedirects)

	chain, err = redirectsOf(ctx, http.DefaultClient, "nfs://filer/isos/rackroll-4.2.0.iso")
	assert.NoError(t, err)
	assert.Nil(t, chain, "nfs is the BMC's to mount: not asked")
}

// A BMC that shows the URL the image server redirected to holds the
// installer; one that shows another host, not reached by the redirect,
// fails typed and the error says what the image server answered.
func TestReimageAcceptsTheURLARedirectLedTo(t *testing.T) {
	site, mirror := imageServers(t)
	image := site.URL + "/hops/1/rackroll-4.2.0.iso"
	f := newFake()
	a := showing(f, image, mirror.URL+"/hops/0/rackroll-4.2.0.iso") // the BMC followed the redirect
	in := reimageInput()
	in.ImageURL = image
	_, err := a.Reimage(context.Background(), in)
	require.NoError(t, err)
	assert.Equal(t, 1, f.count("Reset"))
	require.NoError(t, a.EjectMedia(context.Background(), EjectInput{Endpoint: testEndpoint, ImageURL: image}))
	assert.Equal(t, 1, f.count("EjectMedia"), "the eject recognises the redirected URL too")

	f = newFake()
	a = showing(f, image, "http://images.elsewhere.example/hops/0/rackroll-4.2.0.iso")
	_, err = a.Reimage(context.Background(), in)
	ae := appError(t, err, ErrTypeWrongImage, false)
	assert.Contains(t, ae.Error(), "the image server redirects it to "+mirror.URL+"/hops/0/rackroll-4.2.0.iso")
	assert.Zero(t, f.count("Reset"))

	f = newFake()
	a = showing(f, site.URL+"/hops/0/rackroll-4.2.0.iso", mirror.URL+"/hops/0/rackroll-4.2.0.iso")
	in.ImageURL = site.URL + "/hops/0/rackroll-4.2.0.iso"
	_, err = a.Reimage(context.Background(), in)
	ae = appError(t, err, ErrTypeWrongImage, false)
	assert.Contains(t, ae.Error(), "the image server does not redirect it", "the mirror is another host when nothing leads there")
}

// showing makes activities over f whose BMC shows shown where f holds
// asked, with the image server asked for real.
func showing(f *fakeClient, asked, shown string) *Activities {
	a := activitiesWith(f)
	a.Dial = func(context.Context, bmcclient.Endpoint, bmcclient.Credentials, time.Duration) (bmcclient.Client, error) {
		return showingClient{f, asked, shown}, nil
	}
	a.ImageClient = http.DefaultClient
	return a
}

var _ bmcclient.Client = showingClient{}

type showingClient struct {
	*fakeClient
	asked, shown string
}

func (c showingClient) Medium(ctx context.Context, m bmcclient.MediaInfo) (bmcclient.MediaInfo, error) {
	m, err := c.fakeClient.Medium(ctx, m)
	if m.Image == c.asked {
		m.Image = c.shown
	}
	return m, err
}

func TestRedirectNoteHidesSignatures(t *testing.T) {
	assert.Equal(t, "https://bucket.example/rackroll-4.2.0.iso?…", withoutQuery("https://u:p@bucket.example/rackroll-4.2.0.iso?X-Amz-Signature=abc"))
}
