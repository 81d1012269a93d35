//go:build !lab

package main

import (
	"fmt"

	"github.com/rackroll/rackroll/internal/model"
	"github.com/spf13/cobra"
)

// The production starter: built without the lab (`go build ./starter`, the
// Dockerfile's default target, deploy/), so no simulator is linked into
// what runs at a site (docs/design.md#the-lab-is-not-the-product).
const withLab = false

// checkInventory checks the site's own fields. The lab's section (`lab:`,
// `labAdmin:`) means nothing here: the model carries it unread, and a lab
// build checks it (lab_build.go).
var checkInventory = (*model.Inventory).Validate

// labCmds stand in for the lab's commands: they say how to get them
// instead of cobra's bare "unknown command".
func (a *app) labCmds() []*cobra.Command {
	return []*cobra.Command{withoutLab("lab"), withoutLab("demo")}
}

func withoutLab(use string) *cobra.Command {
	return &cobra.Command{
		Use:                use,
		Short:              "Not in this build: needs a starter built with -tags lab (make build)",
		Hidden:             true,
		DisableFlagParsing: true,
		Args:               cobra.ArbitraryArgs,
		RunE: func(*cobra.Command, []string) error {
			return fmt.Errorf("`starter %s` is not in this build: the production starter has no lab; build one with the lab: `make build` (bin/starter) or `go build -tags lab ./starter`", use)
		},
	}
}
