// Package demo runs `make demo ONCE=1` as a user would: the README's
// "run it" command must complete an upgrade end to end and exit 0.
package demo

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

func TestMakeDemoOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole demo (about two minutes)")
	}
	// Free ports, so a dev server a developer left running does not collide.
	cmd := exec.Command("make", "-C", "../..", "demo", "ONCE=1", "DEMO_FLAGS=--port 0 --ui-port 0")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	log := out.String()
	if err != nil {
		t.Fatalf("make demo ONCE=1: %v\n%s", err, log)
	}
	for _, want := range []string{
		"cluster site-a registered",
		"Critical path:",
		"ControlPlane Updating",
		"Compute Updating",
		"Runtime upgrade to 4.2.0 completed: 41 servers upgraded, 1 retired to spare, 0 failed",
		"left cordoned: -",
		// The worker runs outside any pod: the keyset's password came
		// from the lab's Secret through its kubeconfig.
		"keyset bmc-demo (bmc)",
		"applied on 42 of 42 BMCs",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("demo output lacks %q\n%s", want, log)
		}
	}
}
