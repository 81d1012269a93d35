package model

import (
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

var (
	dnsLabel     = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	dnsSubdomain = regexp.MustCompile(`^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$`)
	macAddress   = regexp.MustCompile(`^[0-9A-Fa-f]{2}(:[0-9A-Fa-f]{2}){5}$`)
	envName      = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// isDNSLabel: cluster and rack names end up in workflow ids and label values.
func isDNSLabel(s string) bool { return len(s) <= 63 && dnsLabel.MatchString(s) }

// isDNSSubdomain: server names may become Kubernetes node names.
func isDNSSubdomain(s string) bool { return len(s) <= 253 && dnsSubdomain.MatchString(s) }

// IsHTTPURL reports whether s is an absolute http(s) URL.
func IsHTTPURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

func itoa(n int) string { return strconv.Itoa(n) }

func joinComma(s []string) string { return strings.Join(s, ", ") }

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return itoa(n) + " " + many
}
