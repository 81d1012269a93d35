package bmc

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/rackroll/rackroll/activities/bmc/bmcclient"
)

// Redirected image URLs (docs/evidence.md, "A redirected URL"). A site's
// image URL often answers with a redirect — to a mirror, a CDN, an
// artifact store — and a BMC that follows it may show the URL it was led
// to instead of the one it was given (issue 35). Such a URL is not
// "another host" when the image server itself sends there: rackroll asks
// it, from the worker (which sits beside the BMCs on a site), where the
// installer's URL leads, and judges the BMC's image against every URL of
// that chain as well (run.judge). The chain is only looked up when the BMC
// shows something other than the URL asked for, once per activity, and is
// bounded: maxRedirects hops, all within redirectTimeout (under the
// shortest heartbeat timeout, 10 s: not heartbeated, as the reimage sends
// no heartbeat before the one that records its reset). Where
// the worker cannot ask (nfs, cifs, no route), nothing is added and a
// redirected URL fails as a different image, naming what the BMC shows.

const (
	// maxRedirects: browsers and curl stop at 20 and 50; an image URL
	// needs one or two (a mirror, a signed object-store URL).
	maxRedirects    = 5
	redirectTimeout = 5 * time.Second
)

// redirectsOf follows image's redirects with HEAD (GET of one byte where
// HEAD is refused, as the image preflight does) and returns the URLs it
// was led to, in order. err says why the chain ended early; the URLs found
// until then are returned with it.
func redirectsOf(ctx context.Context, hc *http.Client, image string) ([]string, error) {
	u, err := url.Parse(image)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(ctx, redirectTimeout)
	defer cancel()
	c := *hc
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	var chain []string
	for cur := image; ; {
		res, err := ask(ctx, &c, http.MethodHead, cur)
		if err == nil && (res.StatusCode == http.StatusMethodNotAllowed || res.StatusCode == http.StatusNotImplemented) {
			res, err = ask(ctx, &c, http.MethodGet, cur)
		}
		if err != nil {
			return chain, err
		}
		loc, lerr := res.Location()
		if res.StatusCode/100 != 3 || lerr != nil {
			return chain, nil
		}
		if len(chain) == maxRedirects {
			return chain, fmt.Errorf("more than %d redirects", maxRedirects)
		}
		cur = loc.String()
		chain = append(chain, cur)
	}
}

// ask sends one bodiless request.
func ask(ctx context.Context, c *http.Client, method, target string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, target, nil)
	if err != nil {
		return nil, err
	}
	if method == http.MethodGet {
		req.Header.Set("Range", "bytes=0-0")
	}
	res, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	res.Body.Close()
	return res, nil
}

// redirectChain is what the worker learnt of an image URL's redirects.
type redirectChain struct {
	urls []string
	err  error
}

// judge is judgeImage against image and, when the BMC shows another
// image, against each URL the image server redirects image to.
func (r *run) judge(m bmcclient.MediaInfo, image string) imageMatch {
	j := judgeImage(m, image)
	if j != imageOther {
		return j
	}
	for _, u := range r.redirects(image).urls {
		if judgeImage(m, u) == imageSame {
			return imageSame
		}
	}
	return imageOther
}

func (r *run) holds(m bmcclient.MediaInfo, image string) bool { return r.judge(m, image) == imageSame }

// redirects looks image's chain up once per activity.
func (r *run) redirects(image string) redirectChain {
	if c, ok := r.chains[image]; ok {
		return c
	}
	var c redirectChain
	c.urls, c.err = redirectsOf(r.ctx, r.a.imageClient(), image)
	if r.chains == nil {
		r.chains = map[string]redirectChain{}
	}
	r.chains[image] = c
	return c
}

// redirectNote says, for a different-image error, what the image server
// answered: the operator sees whether a redirect was considered.
func (r *run) redirectNote(image string) string {
	c, ok := r.chains[image]
	switch {
	case !ok:
		return ""
	case len(c.urls) > 0:
		shown := make([]string, len(c.urls))
		for i, u := range c.urls {
			shown[i] = withoutQuery(u)
		}
		return "; the image server redirects it to " + strings.Join(shown, " → ")
	case c.err != nil:
		return "; the worker could not ask the image server where it redirects: " + c.err.Error()
	}
	return "; the image server does not redirect it"
}

// withoutQuery shows a URL without user info or query: a signed
// object-store URL carries its signature there.
func withoutQuery(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return bmcclient.RedactURL(s)
	}
	u.User = nil
	if u.RawQuery != "" {
		u.RawQuery = "…"
	}
	return u.String()
}

func (a *Activities) imageClient() *http.Client {
	if a.ImageClient != nil {
		return a.ImageClient
	}
	return http.DefaultClient
}
