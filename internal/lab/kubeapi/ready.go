package kubeapi

import (
	"context"
	"io"
	"net/http"
	"strings"
	"time"
)

// probeReady does one GET of url and reports whether it answered 200,
// otherwise a short description for the timeout error.
func probeReady(ctx context.Context, hc *http.Client, url string) (bool, string) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false, err.Error()
	}
	resp, err := hc.Do(req)
	if err != nil {
		return false, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	if resp.StatusCode == http.StatusOK {
		return true, ""
	}
	return false, resp.Status + ": " + failedChecks(string(b))
}

// failedChecks keeps the "[-]name failed" lines of a /readyz body.
func failedChecks(body string) string {
	var out []string
	for _, l := range strings.Split(body, "\n") {
		if strings.HasPrefix(l, "[-]") {
			out = append(out, strings.TrimSpace(l))
		}
	}
	if len(out) == 0 {
		return strings.TrimSpace(body)
	}
	return strings.Join(out, "; ")
}
