//go:build lab

package main

import (
	"github.com/rackroll/rackroll/internal/lab"
	"github.com/spf13/cobra"
)

// This starter is built with the lab (-tags lab: `make build`, the
// Dockerfile's lab target, the tests' binaries): it runs the simulated site
// and checks its event log. The production starter (`go build ./starter`,
// the image's default target) has none of it
// (docs/design.md#the-lab-is-not-the-product).
const withLab = true

// checkInventory checks a site inventory before anything uses it: the
// site's own fields and the lab's section (`lab:`, `labAdmin:`).
var checkInventory = lab.Validate

// labCmds are the commands that need the lab.
func (a *app) labCmds() []*cobra.Command {
	return []*cobra.Command{
		group("lab", "Run the simulated site (real kube-apiserver + Redfish BMCs) and inject faults",
			a.labUpCmd(), a.labFaultCmd(), a.labRackCmd(), a.labStatusCmd(), a.labCheckCmd()),
		a.demoCmd(),
	}
}
