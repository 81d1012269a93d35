package kube

import (
	"testing"

	"github.com/rackroll/rackroll/internal/keyset"
	"github.com/stretchr/testify/require"
)

// The keyset pod's image: the release's unless the site names one; a
// value no kubelet could use refused, naming the variable and the value.
func TestKeysetImageFromEnv(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	img, err := KeysetImageFromEnv(env(), "1.4.0")
	require.NoError(t, err)
	require.Equal(t, KeysetImage{Ref: "ghcr.io/rackroll/rackroll-keyset:1.4.0", Default: true}, img)

	img, err = KeysetImageFromEnv(env(KeysetImageEnv, "registry.site-a.example:5000/infra/rackroll-keyset@sha256:"+
		"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", KeysetPullSecretEnv, "site-registry"), "1.4.0")
	require.NoError(t, err)
	require.Equal(t, "site-registry", img.PullSecret)
	require.False(t, img.Default)

	_, err = KeysetImageFromEnv(env(KeysetImageEnv, "Registry/UPPER:tag"), "1.4.0")
	require.ErrorContains(t, err, `RACKROLL_KEYSET_IMAGE="Registry/UPPER:tag": not an image reference`)
	_, err = KeysetImageFromEnv(env(KeysetPullSecretEnv, "Bad_Secret"), "1.4.0")
	require.ErrorContains(t, err, `RACKROLL_KEYSET_PULL_SECRET="Bad_Secret": not a Secret's name`)
	require.ErrorContains(t, err, "in namespace "+keyset.NodeNamespace)
	_, err = KeysetImageFromEnv(env(), "1.4.0+build/x")
	require.ErrorContains(t, err, "the release's keyset image (version 1.4.0+build/x)")
}
