// Package image checks, before an upgrade touches anything, that the
// runtime image the BMCs will mount answers where the inventory says it is
// (docs/behaviour-upgrade.md#guards). It runs on the site's worker, beside the BMCs.
package image

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"go.temporal.io/sdk/activity"
)

// Activities check runtime images over HTTP(S).
type Activities struct {
	// Client is the HTTP client (nil: one with RequestTimeout).
	Client *http.Client
	// RequestTimeout bounds the HEAD or ranged GET (default 30 s); a
	// checksum read is bounded by the activity's own limit.
	RequestTimeout time.Duration
}

// CheckInput names the image and, when the inventory gives one, its
// SHA-256 (hex).
type CheckInput struct {
	URL    string `json:"url"`
	SHA256 string `json:"sha256,omitempty"`
}

// CheckImage asks the image server for the image: HEAD, or a GET of its
// first byte where HEAD is not allowed; with a checksum, the whole content
// is read and hashed. An answer (even 404) is a result; only a failure to
// get one (refused, timed out) is an error, which the workflow's retries
// absorb before it refuses the upgrade with it.
func (a *Activities) CheckImage(ctx context.Context, in CheckInput) (api.ImageCheck, error) {
	c := api.ImageCheck{URL: in.URL}
	if !strings.HasPrefix(in.URL, "http://") && !strings.HasPrefix(in.URL, "https://") {
		// NFS and CIFS images are mounted by the BMC itself; the worker
		// cannot ask for them the way the BMC will.
		c.OK, c.Answer = true, "not checked: only http and https images are asked for before the upgrade"
		return c, nil
	}
	res, err := a.ask(ctx, http.MethodHead, in.URL)
	if err == nil && (res.StatusCode == http.StatusMethodNotAllowed || res.StatusCode == http.StatusNotImplemented) {
		res, err = a.ask(ctx, http.MethodGet, in.URL) // some image servers refuse HEAD
	}
	if err != nil {
		return c, fmt.Errorf("ask %s: %w", in.URL, err)
	}
	c.Answer = answer(res)
	c.OK = res.StatusCode/100 == 2
	if !c.OK || in.SHA256 == "" {
		return c, nil
	}
	sum, err := a.sum(ctx, in.URL)
	if err != nil {
		return c, fmt.Errorf("read %s for its checksum: %w", in.URL, err)
	}
	c.SHA256 = sum
	if !strings.EqualFold(sum, in.SHA256) {
		c.OK = false
		c.Answer += fmt.Sprintf("; its sha256 is %s, the inventory says %s", sum, in.SHA256)
	}
	return c, nil
}

func (a *Activities) client() *http.Client {
	if a.Client != nil {
		return a.Client
	}
	return http.DefaultClient
}

// ask sends one request bounded by RequestTimeout; a GET asks for the
// first byte only and the body is not read.
func (a *Activities) ask(ctx context.Context, method, url string) (*http.Response, error) {
	timeout := a.RequestTimeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, method, url, nil)
	if err != nil {
		return nil, err
	}
	if method == http.MethodGet {
		req.Header.Set("Range", "bytes=0-0")
	}
	res, err := a.client().Do(req)
	if err != nil {
		return nil, err
	}
	res.Body.Close()
	return res, nil
}

func answer(res *http.Response) string {
	s := res.Status
	if res.StatusCode/100 == 2 && res.ContentLength >= 0 && res.Request.Method == http.MethodHead {
		s += fmt.Sprintf(", %d bytes", res.ContentLength)
	}
	return s
}

// sum reads the whole image and returns its SHA-256, heartbeating as it
// goes (an installer image is hundreds of MB).
func (a *Activities) sum(ctx context.Context, url string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	res, err := a.client().Do(req)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	if res.StatusCode/100 != 2 {
		return "", errors.New(res.Status)
	}
	h := sha256.New()
	buf := make([]byte, 1<<20)
	var read int64
	for {
		n, err := res.Body.Read(buf)
		h.Write(buf[:n])
		read += int64(n)
		if activity.IsActivity(ctx) {
			activity.RecordHeartbeat(ctx, read)
		}
		if errors.Is(err, io.EOF) {
			return hex.EncodeToString(h.Sum(nil)), nil
		}
		if err != nil {
			return "", err
		}
	}
}
