//go:build lab

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rackroll/rackroll/internal/lab/redfish/redfishtest"
	"github.com/rackroll/rackroll/internal/sitecheck"
)

// `site check` on a BMC that serves the System without credentials prints
// a warning on that BMM's row naming the BMC's address (the other BMMs of
// the example are unreachable: blockers, as in TestReadCommandsOutputFlag).
func TestSiteCheckWarnsOfABMCWithoutAuthentication(t *testing.T) {
	srv, path := labBMCSite(t, "noauth", "")
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
	for _, want := range []string{"! login", "! authentication", "authentication: turn on Redfish authentication on the BMC at " + srv.URL} {
		if !strings.Contains(row, want) {
			t.Errorf("rack1-c1's row lacks %q:\n%s", want, row)
		}
	}
	if strings.Count(out, "! authentication") != 1 {
		t.Errorf("only the BMC without authentication is warned:\n%s", out)
	}
	if !strings.Contains(row, "login: turn on Redfish authentication") || strings.Contains(out, "credentials accepted") {
		t.Errorf("the login is not checked where the BMC serves without credentials; never \"credentials accepted\":\n%s", row)
	}
	js, _, _ := run(t, "site", "check", "--inventory", path, "--timeout", "500ms", "-o", "json")
	for _, it := range bmmItems(t, js, "rack1-c1") {
		if it.Check == "login" && (it.OK || it.Blocker || !strings.HasPrefix(it.Detail, "not checked")) {
			t.Errorf("the login is a warning, not checked: %+v", it)
		}
	}
}

// `site check` on a BMC that keeps its versions only in the System and
// the Manager (no FirmwareInventory): one finding per component of the
// baseline, each with its version, where it was read and the minimum —
// none saying the firmware could not be read beside them.
func TestSiteCheckSaysOneFindingPerComponent(t *testing.T) {
	_, path := labBMCSite(t, "noinventory", `
images:
  firmware:
    "4.1.2":
      - match: {manufacturer: Contoso}
        components:
          - {name: BIOS, kind: bios, inventory: "^BIOS$", minimum: "1.1.0", image: "http://fw.example/bios-1.1.0.bin", apply: {method: SimpleUpdate}}
          - {name: BMC, kind: bmc, minimum: "1.00", source: property, image: "http://fw.example/bmc-1.00.bin", apply: {method: SimpleUpdate}}
`)
	js, _, _ := run(t, "site", "check", "--inventory", path, "--timeout", "500ms", "-o", "json")
	got := map[string]sitecheck.Item{}
	for _, it := range bmmItems(t, js, "rack1-c1") {
		if strings.HasPrefix(it.Check, "firmware") {
			if _, twice := got[it.Check]; twice {
				t.Errorf("%s found twice", it.Check)
			}
			got[it.Check] = it
		}
	}
	if len(got) != 2 {
		t.Fatalf("one finding per component, none beside them: %+v", got)
	}
	if b := got["firmware BIOS"]; b.OK || b.Blocker || b.Detail != "1.0.0 (System.BiosVersion), minimum 1.1.0: 1.0.0 is older than 1.1.0" {
		t.Errorf("the BIOS is below, a warning saying where it was read: %+v", b)
	}
	if b := got["firmware BMC"]; !b.OK || b.Detail != "1.00 (Manager.FirmwareVersion), minimum 1.00" {
		t.Errorf("the BMC is at its baseline, read from the Manager: %+v", b)
	}
	table, _, _ := run(t, "site", "check", "--inventory", path, "--timeout", "500ms")
	if !strings.Contains(table, "! firmware BIOS, ✔ firmware BMC") {
		t.Errorf("the table names each component once:\n%s", table)
	}
}

// bmmItems are the findings of one BMM in `site check -o json`.
func bmmItems(t *testing.T, js, bmm string) []sitecheck.Item {
	t.Helper()
	var rep sitecheck.Report
	if err := json.Unmarshal([]byte(js), &rep); err != nil {
		t.Fatalf("%v: %s", err, js)
	}
	for _, r := range rep.BMMs {
		if r.BMM == bmm {
			return r.Items
		}
	}
	t.Fatalf("no row for %s: %s", bmm, js)
	return nil
}

// labBMCSite serves one lab BMC of profile and writes the two-rack example
// with rack1-c1 on it (and extra appended to the inventory); the other
// BMMs stay unreachable. The credentials are the lab's.
func labBMCSite(t *testing.T, profile, extra string) (*redfishtest.Server, string) {
	t.Helper()
	srv := redfishtest.StartTLS(t, redfishtest.Profile(profile))
	t.Setenv("BMC_USERNAME", redfishtest.Username)
	t.Setenv("BMC_PASSWORD", redfishtest.Password)
	raw, err := os.ReadFile("../examples/two-rack.yaml")
	if err != nil {
		t.Fatal(err)
	}
	inv := strings.Replace(string(raw), `bmc: {address: "https://10.0.1.21", credentials: default}`,
		`bmc: {address: "`+srv.URL+`", credentials: default, caFile: "`+srv.CAFile+`"}`, 1) + extra
	path := filepath.Join(t.TempDir(), "site.yaml")
	if err := os.WriteFile(path, []byte(inv), 0o600); err != nil {
		t.Fatal(err)
	}
	return srv, path
}
