package main

import (
	"time"

	"github.com/rackroll/rackroll/internal/model"
)

// readyCell is the READY column of `cluster show`: the node's Ready as the
// health monitor last recorded it, since when when it is not True, and a
// read-only root filesystem.
func readyCell(b model.BMM) string {
	s := b.ReadyState
	if s == "" {
		s = "-"
	}
	if s != model.ReadyTrue && b.ReadySince != nil {
		s += " since " + b.ReadySince.UTC().Format(time.RFC3339)
	}
	if b.ReadOnlyRootFS {
		s += ", root fs read-only"
	}
	return s
}
