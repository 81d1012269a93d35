package bmc

import (
	"fmt"
	"net/url"
	"strings"
)

// baseURL normalises a BMC address to scheme://host[:port]. Credentials in
// the address are refused: they belong in a reference.
func baseURL(addr string) (string, error) {
	a := strings.TrimSpace(addr)
	if a == "" {
		return "", fmt.Errorf("the BMC address is empty")
	}
	if !strings.Contains(a, "://") {
		a = "https://" + a
	}
	u, err := url.Parse(a)
	if err != nil {
		return "", fmt.Errorf("the BMC address %q is not a URL: %w", redactURL(addr), err)
	}
	if u.User != nil {
		return "", fmt.Errorf("the BMC address %s carries credentials; use a credentials reference instead", redactURL(addr))
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("the BMC address %s must be http(s)", addr)
	}
	if u.Host == "" {
		return "", fmt.Errorf("the BMC address %s has no host", addr)
	}
	return u.Scheme + "://" + u.Host, nil
}

// checkImageURL accepts the absolute URLs a BMC can mount.
func checkImageURL(image string) error {
	u, err := url.Parse(image)
	if err != nil || u.Host == "" {
		return fmt.Errorf("the image URL %q is not an absolute URL", redactURL(image))
	}
	if transferProtocol(image) == "" {
		return fmt.Errorf("the image URL %s must be http, https, nfs or cifs", redactURL(image))
	}
	return nil
}

// transferProtocol is the VirtualMedia TransferProtocolType for an image
// URL, "" when the scheme is not one a BMC mounts.
func transferProtocol(image string) string {
	u, err := url.Parse(image)
	if err != nil {
		return ""
	}
	switch strings.ToLower(u.Scheme) {
	case "http":
		return "HTTP"
	case "https":
		return "HTTPS"
	case "nfs":
		return "NFS"
	case "cifs", "smb":
		return "CIFS"
	}
	return ""
}

// redactURL drops user info so an image URL with credentials can be logged.
func redactURL(s string) string {
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
