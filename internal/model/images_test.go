package model

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestImagesSectionProblemsAreListedTogether(t *testing.T) {
	good := strings.Repeat("ab", 32)
	_, err := ParseValid([]byte(minimalYAML+"images:\n  urlTemplate: ftp://images/rackroll.iso\n  sha256: {\"4.2.0\": xyz, \"not-a-version!\": "+good+"}\n"), (*Inventory).Validate)
	require.Error(t, err)
	for _, want := range []string{
		"images.urlTemplate", "ftp://images/rackroll.iso", "absolute http, https, nfs or cifs URL",
		"images.sha256.4.2.0", "xyz", "64 hexadecimal digits",
		"images.sha256.not-a-version!", "must be a runtime version",
	} {
		require.ErrorContains(t, err, want)
	}
	_, err = ParseValid([]byte(minimalYAML+"images: {urlTemplate: \"http://images/rackroll.iso\"}\n"), (*Inventory).Validate)
	require.ErrorContains(t, err, "must contain {version}")

	// minimalYAML's racks are too small to be valid; the images are fine.
	_, err = ParseValid([]byte(minimalYAML+"images: {urlTemplate: \"https://img.example/rackroll-{version}.iso\", sha256: {\"4.2.0\": "+good+"}}\n"), (*Inventory).Validate)
	require.NotContains(t, err.Error(), "images")
	inv := Inventory{Images: ImagesSpec{URLTemplate: "https://img.example/rackroll-{version}.iso"}}
	require.Equal(t, "https://img.example/rackroll-4.2.0.iso", inv.ImageURL("4.2.0"))
}
