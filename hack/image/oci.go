package main

import (
	"archive/tar"
	"bytes"
	"io"
	"os"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// epoch is every timestamp the image carries: the same sources and
// version give the same digests.
var epoch = time.Unix(0, 0).UTC()

// writeLayout writes the image index of one image per platform to an
// OCI layout at o.Out, tagged o.Version (its ref.name annotation).
// bins[i] is the node program for plats[i].
func writeLayout(o Options, plats []v1.Platform, bins []string) error {
	var idx v1.ImageIndex = mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for i, plat := range plats {
		img, err := image(o, plat, bins[i])
		if err != nil {
			return err
		}
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: &plat}})
	}
	if err := os.RemoveAll(o.Out); err != nil {
		return err
	}
	p, err := layout.Write(o.Out, empty.Index)
	if err != nil {
		return err
	}
	return p.AppendIndex(idx, layout.WithAnnotations(map[string]string{"org.opencontainers.image.ref.name": o.Version}))
}

// image is the node program alone, on no base: it needs no libc, shell or
// CA bundle. It runs as root because it writes the node's /etc/shadow
// (0640 or 0000, root's) and gives homes to other users (chown): no other
// user may. The pod is what confines it: only /etc and /home mounted.
func image(o Options, plat v1.Platform, bin string) (v1.Image, error) {
	layer, err := programLayer(bin)
	if err != nil {
		return nil, err
	}
	img, err := mutate.AppendLayers(mutate.MediaType(empty.Image, types.OCIManifestSchema1), layer)
	if err != nil {
		return nil, err
	}
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture, cf.Created = plat.OS, plat.Architecture, v1.Time{Time: epoch}
	cf.Config.Entrypoint = []string{NodeProgram}
	cf.Config.Cmd = []string{"apply"}
	cf.Config.User = "0:0"
	cf.Config.Labels = map[string]string{
		"org.opencontainers.image.version":     o.Version,
		"org.opencontainers.image.source":      o.Source,
		"org.opencontainers.image.title":       "rackroll-keyset",
		"org.opencontainers.image.description": "rackroll's keyset pod: a node's rackroll users made those it is given",
	}
	return mutate.ConfigFile(img, cf)
}

// programLayer is one layer: /usr/local/bin/rackroll-keyset, 0755,
// root's, with its parent directories.
func programLayer(bin string) (v1.Layer, error) {
	data, err := os.ReadFile(bin)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	parts := strings.Split(strings.TrimPrefix(NodeProgram, "/"), "/")
	for i := 1; i < len(parts); i++ {
		dir := strings.Join(parts[:i], "/") + "/"
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: dir, Mode: 0o755, ModTime: epoch, Format: tar.FormatPAX}); err != nil {
			return nil, err
		}
	}
	hdr := &tar.Header{Typeflag: tar.TypeReg, Name: strings.TrimPrefix(NodeProgram, "/"), Mode: 0o755, Size: int64(len(data)), ModTime: epoch, Format: tar.FormatPAX}
	if err := tw.WriteHeader(hdr); err != nil {
		return nil, err
	}
	if _, err := tw.Write(data); err != nil {
		return nil, err
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	b := buf.Bytes()
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil },
		tarball.WithMediaType(types.OCILayer))
}
