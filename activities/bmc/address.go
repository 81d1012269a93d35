package bmc

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/rackroll/rackroll/activities/bmc/bmcclient"
)

// checkImageURL accepts the absolute URLs a BMC can mount.
func checkImageURL(image string) error {
	u, err := url.Parse(image)
	if err != nil || u.Host == "" {
		return fmt.Errorf("the image URL %q is not an absolute URL", bmcclient.RedactURL(image))
	}
	if transferProtocol(image) == "" {
		return fmt.Errorf("the image URL %s must be http, https, nfs or cifs", bmcclient.RedactURL(image))
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
