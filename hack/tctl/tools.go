//go:build tools

// Package tools pins the tctl binary `make tools` builds into bin/.
package tools

import _ "github.com/temporalio/tctl/cmd/tctl"
