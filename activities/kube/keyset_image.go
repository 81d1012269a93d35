package kube

import (
	"fmt"
	"strings"

	"github.com/distribution/reference"
	"github.com/rackroll/rackroll/internal/keyset"
	"k8s.io/apimachinery/pkg/util/validation"
)

// The worker's environment variables that name the keyset pod's image
// at a site (docs/keysets-nodes.md#naming-the-image).
const (
	KeysetImageEnv      = "RACKROLL_KEYSET_IMAGE"
	KeysetPullSecretEnv = "RACKROLL_KEYSET_PULL_SECRET"
)

// KeysetImage is the keyset pod's image and the Secret, in
// keyset.NodeNamespace, its kubelet pulls it with ("" when none).
type KeysetImage struct {
	Ref        string
	PullSecret string
	// Default: Ref is the release's image, not one the site named.
	Default bool
}

// KeysetImageFromEnv reads the site's image and pull secret; without
// one, the image is the release's of version (keyset.NodeImage). A value
// that a kubelet could not use is an error naming the variable and the
// value, at the worker's start rather than as every node's failure.
func KeysetImageFromEnv(getenv func(string) string, version string) (KeysetImage, error) {
	img := KeysetImage{Ref: strings.TrimSpace(getenv(KeysetImageEnv)), PullSecret: strings.TrimSpace(getenv(KeysetPullSecretEnv))}
	if img.Ref == "" {
		img.Ref, img.Default = keyset.NodeImage(version), true
	}
	if _, err := reference.ParseNormalizedNamed(img.Ref); err != nil {
		name := KeysetImageEnv
		if img.Default {
			name = "the release's keyset image (version " + version + ")"
		}
		return KeysetImage{}, fmt.Errorf("%s=%q: not an image reference (%v): want [registry/]repository[:tag][@digest], e.g. %s", name, img.Ref, err, keyset.NodeImage("1.2.3"))
	}
	if img.PullSecret != "" {
		if errs := validation.IsDNS1123Subdomain(img.PullSecret); len(errs) > 0 {
			return KeysetImage{}, fmt.Errorf("%s=%q: not a Secret's name (%s): name a Secret of type kubernetes.io/dockerconfigjson in namespace %s", KeysetPullSecretEnv, img.PullSecret, strings.Join(errs, "; "), keyset.NodeNamespace)
		}
	}
	return img, nil
}
