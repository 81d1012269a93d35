//go:build !lab

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The production starter has no lab: its `lab` and `demo` commands refuse,
// with their arguments, and say how to get a starter that has them.
func TestProductionStarterHasNoLab(t *testing.T) {
	for _, args := range [][]string{
		{"lab", "up", "--inventory", "../examples/two-rack.yaml", "--out-inventory", "lab.yaml"},
		{"lab", "status"},
		{"demo", "--once"},
	} {
		_, _, err := run(t, args...)
		if err == nil || !strings.Contains(err.Error(), "`starter "+args[0]+"` is not in this build") || !strings.Contains(err.Error(), "-tags lab") {
			t.Errorf("starter %s: %v, want the refusal naming -tags lab", strings.Join(args, " "), err)
		}
	}
}

// The production starter reads an inventory with a lab section (the lab's
// out-inventory, registered by compose's demo with the image's starter)
// and leaves the section unread: a fault the lab would refuse is no
// problem of the site.
func TestProductionStarterLeavesTheLabSectionUnread(t *testing.T) {
	base, err := os.ReadFile("../examples/two-rack.yaml")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "inv.yaml")
	if err := os.WriteFile(path, append(base, "  faults: [{bmm: rack9-c1, kind: melts}]\nlabAdmin: http://127.0.0.1:7400\n"...), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := run(t, "cluster", "validate", "--inventory", path); err != nil {
		t.Fatalf("cluster validate: %v", err)
	}
}
