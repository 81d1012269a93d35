package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// NodeProgram is where the image holds the node program: the path
// keyset.NodePodCommand runs.
const NodeProgram = "/usr/local/bin/rackroll-keyset"

// nodePackage is the node program's package.
const nodePackage = "github.com/rackroll/rackroll/cmd/rackroll-keyset"

// Options say what Build makes.
type Options struct {
	Out       string   // the OCI layout's directory
	Version   string   // the tag and the version label
	Source    string   // the source label
	Platforms []string // os/arch, e.g. linux/amd64
}

// Build cross-builds the node program for each platform and writes the
// image index of them to an OCI layout at o.Out.
func Build(ctx context.Context, o Options) error {
	if o.Version == "" || len(o.Platforms) == 0 {
		return fmt.Errorf("a version and at least one platform are needed")
	}
	tmp, err := os.MkdirTemp("", "rackroll-image-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	var plats []v1.Platform
	var bins []string
	for _, p := range o.Platforms {
		osName, arch, ok := strings.Cut(p, "/")
		if !ok || osName != "linux" {
			return fmt.Errorf("platform %q: want linux/<arch> (the node program writes a Linux node's /etc)", p)
		}
		plat := v1.Platform{OS: osName, Architecture: arch}
		bin := filepath.Join(tmp, arch, "rackroll-keyset")
		if err := compile(ctx, plat, o.Version, bin); err != nil {
			return err
		}
		plats, bins = append(plats, plat), append(bins, bin)
	}
	return writeLayout(o, plats, bins)
}

// compile builds the node program for plat: static (no cgo: the image
// has no libc), without paths of this machine, stripped.
func compile(ctx context.Context, plat v1.Platform, version, out string) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-o", out,
		"-ldflags", "-s -w -X github.com/rackroll/rackroll/internal/version.Version="+version, nodePackage)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+plat.OS, "GOARCH="+plat.Architecture)
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s for %s/%s: %v\n%s", nodePackage, plat.OS, plat.Architecture, err, b)
	}
	return nil
}
