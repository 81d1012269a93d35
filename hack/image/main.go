// Command image builds the keyset pod's image (docs/keysets-nodes.md#the-image)
// without a container engine: the node program (cmd/rackroll-keyset)
// cross-built static for each platform, alone in an image, written as an
// OCI image layout that `crane push` or `skopeo copy` publishes. `make
// image` runs it into out/image.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
)

func main() {
	var o Options
	flag.StringVar(&o.Out, "out", "out/image", "the OCI image layout's directory (replaced)")
	flag.StringVar(&o.Version, "version", "dev", "the build's version: the image's tag and org.opencontainers.image.version, as the worker that names the image was built with")
	platforms := flag.String("platforms", "linux/amd64,linux/arm64", "the platforms, comma-separated")
	flag.StringVar(&o.Source, "source", "https://github.com/rackroll/rackroll", "org.opencontainers.image.source")
	flag.Parse()
	o.Platforms = strings.Split(*platforms, ",")
	if err := Build(context.Background(), o); err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
	fmt.Printf("%s: %s, tag %s (%s)\n", o.Out, NodeProgram, o.Version, strings.Join(o.Platforms, ", "))
}
