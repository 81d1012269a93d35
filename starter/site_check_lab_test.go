//go:build lab

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rackroll/rackroll/internal/lab/redfish/redfishtest"
)

// `site check` on a BMC that serves the System without credentials prints
// a warning on that BMM's row naming the BMC's address (the other BMMs of
// the example are unreachable: blockers, as in TestReadCommandsOutputFlag).
func TestSiteCheckWarnsOfABMCWithoutAuthentication(t *testing.T) {
	srv := redfishtest.StartTLS(t, redfishtest.Profile("noauth"))
	t.Setenv("BMC_USERNAME", redfishtest.Username)
	t.Setenv("BMC_PASSWORD", redfishtest.Password)
	raw, err := os.ReadFile("../examples/two-rack.yaml")
	if err != nil {
		t.Fatal(err)
	}
	inv := strings.Replace(string(raw), `bmc: {address: "https://10.0.1.21", credentials: default}`,
		`bmc: {address: "`+srv.URL+`", credentials: default, caFile: "`+srv.CAFile+`"}`, 1)
	path := filepath.Join(t.TempDir(), "site.yaml")
	if err := os.WriteFile(path, []byte(inv), 0o600); err != nil {
		t.Fatal(err)
	}
	out, _, err := run(t, "site", "check", "--inventory", path, "--timeout", "500ms")
	if err == nil || !strings.Contains(err.Error(), "blockers") {
		t.Fatalf("the unreachable example BMCs are blockers; got %v", err)
	}
	var row string
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "rack1-c1 ") {
			row = line
		}
	}
	for _, want := range []string{"✔ login", "! authentication", "authentication: turn on Redfish authentication on the BMC at " + srv.URL} {
		if !strings.Contains(row, want) {
			t.Errorf("rack1-c1's row lacks %q:\n%s", want, row)
		}
	}
	if strings.Count(out, "! authentication") != 1 {
		t.Errorf("only the BMC without authentication is warned:\n%s", out)
	}
}
