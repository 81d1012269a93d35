package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A keyset image no kubelet could pull stops the worker at its start,
// naming the variable and the value, before it connects anywhere.
func TestWorkerRefusesABadKeysetImage(t *testing.T) {
	t.Setenv("RACKROLL_KEYSET_IMAGE", "bad image!")
	err := run([]string{"--address", "127.0.0.1:1"})
	require.ErrorContains(t, err, `RACKROLL_KEYSET_IMAGE="bad image!": not an image reference`)
}
