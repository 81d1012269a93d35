package reliability

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/test/e2e"
)

// secretNeedles are the forms a leaked BMC password would take: itself,
// and the Basic auth header value built from it (base64 of user:password).
func secretNeedles(t *testing.T, s *site) [][]byte {
	t.Helper()
	ref, ok := s.Inventory.BMCCredentials["default"]
	if !ok || ref.PasswordFile == "" {
		t.Fatalf("the lab inventory has no password file for credentials %q", "default")
	}
	pass, err := os.ReadFile(ref.PasswordFile)
	if err != nil {
		t.Fatal(err)
	}
	pass = bytes.TrimSpace(pass)
	if len(pass) < 8 {
		t.Fatalf("the lab's BMC password is too short (%d bytes) to grep for without false hits", len(pass))
	}
	needles := [][]byte{pass}
	if ref.UsernameFile != "" {
		if user, err := os.ReadFile(ref.UsernameFile); err == nil {
			basic := base64.StdEncoding.EncodeToString([]byte(string(bytes.TrimSpace(user)) + ":" + string(pass)))
			needles = append(needles, []byte(basic))
		}
	}
	return needles
}

func hits(b []byte, needles [][]byte) int {
	n := 0
	for _, nd := range needles {
		n += bytes.Count(b, nd)
	}
	return n
}

// starterOutput runs read commands of the real starter against the site
// and returns everything they printed.
func starterOutput(t *testing.T, s *site, version string) []byte {
	t.Helper()
	_, starter := e2e.Binaries(t, &commands)
	cmds := [][]string{
		{"cluster", "show", "--cluster", s.Cluster, "-o", "json"},
		{"cluster", "show", "--cluster", s.Cluster},
		{"cluster", "validate", "--inventory", s.InvPath, "-o", "json"},
		{"upgrade", "status", "--cluster", s.Cluster, "-o", "json"},
		{"upgrade", "status", "--cluster", s.Cluster},
		{"upgrade", "plan", "--cluster", s.Cluster, "--version", version},
		{"remediation", "list", "--cluster", s.Cluster, "-o", "json"},
		{"lab", "status", "--inventory", s.InvPath, "-o", "json"},
	}
	var out bytes.Buffer
	out.Write(s.scanOutput)
	for _, args := range append(cmds, s.scanCmds...) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cmd := exec.CommandContext(ctx, starter, args...)
		cmd.Env = e2e.StarterEnv(s.Server.Address, t.TempDir())
		b, err := cmd.CombinedOutput()
		// A refusal (exit 1: nothing to plan, no monitor) is output too;
		// only a hang is a failure.
		if ctx.Err() != nil {
			t.Errorf("starter %s: %v", strings.Join(args, " "), err)
		}
		cancel()
		fmt.Fprintf(&out, "$ starter %s (%v)\n%s\n", strings.Join(args, " "), err, b)
	}
	return out.Bytes()
}

// checkSecrets greps histories, worker logs and starter output for the BMC
// password (and the test's own secrets, s.scanNeedles) and records the hits.
func checkSecrets(t *testing.T, s *site, scenario, version string) {
	t.Helper()
	needles := append(secretNeedles(t, s), s.scanNeedles...)
	hist, n := exportHistories(t, s, filepath.Join(s.Dir, "histories"))
	// An in-process worker logs through the test's quiet client unless
	// the test gave it a log of its own (workLog).
	var logs []byte
	if s.workLog != "" {
		var err error
		if logs, err = os.ReadFile(s.workLog); err != nil {
			t.Fatal(err)
		}
	}
	starter := starterOutput(t, s, version)
	h, l, o := hits(hist, needles), hits(logs, needles), hits(starter, needles)
	t.Logf("secret scan: %d histories (%d bytes), worker log %d bytes, starter output %d bytes", n, len(hist), len(logs), len(starter))
	check(t, scenario+": histories scanned", "≥ 1", fmt.Sprint(n), n > 0)
	check(t, scenario+": secret hits (histories/worker log/starter)", "0", fmt.Sprintf("%d (%d/%d/%d)", h+l+o, h, l, o), h+l+o == 0)
	// A scan of nothing proves nothing: the worker log and the starter
	// output must hold what they are supposed to.
	scanned := bytes.Contains(starter, []byte(s.Cluster)) && (s.workLog == "" || len(logs) > 0)
	checkBool(t, scenario+": worker log and starter output scanned", scanned)
}
