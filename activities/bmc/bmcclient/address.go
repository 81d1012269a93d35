package bmcclient

import (
	"fmt"
	"net/url"
	"strings"
)

// BaseURL normalises a BMC address to scheme://host[:port]. Credentials in
// the address are refused: they belong in a reference.
func BaseURL(addr string) (string, error) {
	a := strings.TrimSpace(addr)
	if a == "" {
		return "", fmt.Errorf("the BMC address is empty")
	}
	if !strings.Contains(a, "://") {
		a = "https://" + a
	}
	u, err := url.Parse(a)
	if err != nil {
		return "", fmt.Errorf("the BMC address %q is not a URL: %w", RedactURL(addr), err)
	}
	if u.User != nil {
		return "", fmt.Errorf("the BMC address %s carries credentials; use a credentials reference instead", RedactURL(addr))
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("the BMC address %s must be http(s)", addr)
	}
	if u.Host == "" {
		return "", fmt.Errorf("the BMC address %s has no host", addr)
	}
	return u.Scheme + "://" + u.Host, nil
}

// RedactURL drops user info so a URL with credentials can be logged.
func RedactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		if i := strings.LastIndex(s, "@"); i >= 0 {
			return "<redacted>" + s[i:]
		}
		return s
	}
	if u.User == nil {
		return s
	}
	u.User = nil
	return u.String()
}
