package main

import (
	"archive/tar"
	"bytes"
	"context"
	"debug/elf"
	"io"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/rackroll/rackroll/internal/keyset"
	"github.com/stretchr/testify/require"
)

// The image as `make image` writes it, opened as a registry client would:
// one index tagged with the version, an image for the platform whose
// entrypoint is the node program the pod's command runs, as root, and a
// file system holding that program, executable, a static Linux binary.
func TestImageHoldsTheNodeProgram(t *testing.T) {
	out := t.TempDir()
	require.NoError(t, Build(context.Background(), Options{Out: out, Version: "1.2.3", Source: "https://example.test/rackroll", Platforms: []string{"linux/amd64"}}))

	p, err := layout.FromPath(out)
	require.NoError(t, err)
	top, err := p.ImageIndex()
	require.NoError(t, err)
	m, err := top.IndexManifest()
	require.NoError(t, err)
	require.Len(t, m.Manifests, 1)
	require.Equal(t, "1.2.3", m.Manifests[0].Annotations["org.opencontainers.image.ref.name"])
	idx, err := top.ImageIndex(m.Manifests[0].Digest)
	require.NoError(t, err)
	im, err := idx.IndexManifest()
	require.NoError(t, err)
	require.Len(t, im.Manifests, 1)
	require.Equal(t, v1.Platform{OS: "linux", Architecture: "amd64"}, *im.Manifests[0].Platform)
	img, err := idx.Image(im.Manifests[0].Digest)
	require.NoError(t, err)

	cf, err := img.ConfigFile()
	require.NoError(t, err)
	require.Equal(t, []string{NodeProgram}, cf.Config.Entrypoint)
	require.Equal(t, keyset.NodePodCommand[0], NodeProgram, "the pod's command runs what the image holds")
	require.Equal(t, "0:0", cf.Config.User, "root: it writes /etc/shadow")
	require.Equal(t, "1.2.3", cf.Config.Labels["org.opencontainers.image.version"])
	require.Equal(t, "https://example.test/rackroll", cf.Config.Labels["org.opencontainers.image.source"])
	require.Equal(t, "amd64", cf.Architecture)

	tr := tar.NewReader(mutate.Extract(img))
	var found *tar.Header
	var head []byte
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		if "/"+h.Name == NodeProgram {
			found = h
			head, err = io.ReadAll(tr)
			require.NoError(t, err)
		}
	}
	require.NotNil(t, found, "the image holds %s", NodeProgram)
	require.Equal(t, byte(tar.TypeReg), found.Typeflag)
	require.Equal(t, int64(0o755), found.Mode&0o777, "executable")
	require.Equal(t, 0, found.Uid)
	bin, err := elf.NewFile(bytes.NewReader(head))
	require.NoError(t, err, "a Linux executable")
	require.Equal(t, elf.EM_X86_64, bin.Machine)
	for _, prog := range bin.Progs {
		require.NotEqual(t, elf.PT_INTERP, prog.Type, "static: the image has no dynamic loader, no libc")
	}
}
