package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func run(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	root := newRoot()
	var out, errb bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errb)
	root.SetArgs(args)
	err = root.Execute()
	return out.String(), errb.String(), err
}

// The four-rack example places KCPs in racks 1–3 and the spare in rack 4,
// as the rack-resiliency table says, with two balanced management groups.
func TestClusterValidateFourRack(t *testing.T) {
	out, _, err := run(t, "cluster", "validate", "--inventory", "../examples/four-rack.yaml", "-o", "json")
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]string
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if len(rows) != 42 {
		t.Fatalf("%d rows", len(rows))
	}
	kcpRacks, spareRacks := map[string]int{}, map[string]int{}
	groups := map[string]int{}
	for _, r := range rows {
		for _, k := range []string{"name", "rack", "role", "managementGroup"} {
			if _, ok := r[k]; !ok && k != "managementGroup" {
				t.Fatalf("row %v lacks %s", r, k)
			}
		}
		switch r["role"] {
		case "kcp":
			kcpRacks[r["rack"]]++
		case "kcp-spare":
			spareRacks[r["rack"]]++
		case "management":
			groups[r["managementGroup"]]++
		}
	}
	if len(kcpRacks) != 3 || kcpRacks["rack1"] != 1 || kcpRacks["rack2"] != 1 || kcpRacks["rack3"] != 1 {
		t.Fatalf("KCP racks = %v, want one in each of rack1–3", kcpRacks)
	}
	if len(spareRacks) != 1 || spareRacks["rack4"] != 1 {
		t.Fatalf("spare racks = %v, want rack4", spareRacks)
	}
	if d := groups["a"] - groups["b"]; d > 1 || d < -1 || groups["a"] == 0 {
		t.Fatalf("management groups = %v", groups)
	}

	table, _, err := run(t, "cluster", "validate", "--inventory", "../examples/four-rack.yaml")
	if err != nil || !strings.HasPrefix(table, "NAME") || !strings.Contains(table, "rack4-mgmt1  rack4  kcp-spare") {
		t.Fatalf("table output: %v\n%s", err, table)
	}
}

// A broken inventory gets every problem listed and a non-zero exit.
func TestClusterValidateListsEveryProblem(t *testing.T) {
	_, _, err := run(t, "cluster", "validate", "--inventory", "../examples/broken.yaml")
	if err == nil {
		t.Fatal("want an error")
	}
	var ce *codedError
	if errors.As(err, &ce) {
		t.Fatalf("bad input exits 1, got code %d", ce.code)
	}
	msg := err.Error()
	wants := []string{"cluster:", "runtimeVersion:", "duplicate server name", "bmc.address", "unknown credentials", "unknown role", "not a MAC address"}
	if withLab {
		wants = append(wants, "lab.faults[0].kind") // the lab's section is checked by a lab build only
	}
	for _, want := range wants {
		if !strings.Contains(msg, want) {
			t.Errorf("error does not mention %q:\n%s", want, msg)
		}
	}
	if n := strings.Count(msg, "\n"); n < 10 {
		t.Errorf("want every problem on its own line, got %d lines", n)
	}
}

// An inline secret is one problem among the others: the command lists them
// all, and the secret's value in none.
func TestClusterValidateInlineSecretHidesNothing(t *testing.T) {
	base, err := os.ReadFile("../examples/two-rack.yaml")
	if err != nil {
		t.Fatal(err)
	}
	data := strings.NewReplacer("{usernameEnv: BMC_USERNAME, passwordEnv: BMC_PASSWORD}", "{usernameEnv: BMC_USERNAME, password: hunter2}",
		"runtimeVersion: 4.1.2", "runtimeVersion: 4.1").Replace(string(base))
	path := filepath.Join(t.TempDir(), "inv.yaml")
	if err := os.WriteFile(path, []byte(data+"  faults: [{bmm: rack9-c1, kind: bmc-5xx}]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, _, err = run(t, "cluster", "validate", "--inventory", path)
	if err == nil {
		t.Fatal("want an error")
	}
	wants := []string{"bmcCredentials.default.password", "inline secrets", "runtimeVersion"}
	if withLab {
		wants = append(wants, "lab.faults[0].bmm")
	}
	for _, want := range wants {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not mention %q:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), "hunter2") {
		t.Errorf("the secret's value is in the error:\n%v", err)
	}
}

func TestBadOutputFormatAndMissingFlags(t *testing.T) {
	if _, _, err := run(t, "cluster", "validate", "--inventory", "../examples/four-rack.yaml", "-o", "xml"); err == nil || !strings.Contains(err.Error(), "table, json, yaml") {
		t.Fatalf("-o xml: %v", err)
	}
	if _, _, err := run(t, "cluster", "validate"); err == nil || !strings.Contains(err.Error(), "--inventory is required") {
		t.Fatalf("no --inventory: %v", err)
	}
	if _, _, err := run(t, "upgrade", "start", "--cluster", "x", "--version", "4.2.0", "--wait-time-minutes", "61"); err == nil || !strings.Contains(err.Error(), "waitTimeMinutes") {
		t.Fatalf("wait 61: %v", err)
	}
	out, _, err := run(t, "version")
	if err != nil || !strings.HasPrefix(out, "rackroll ") {
		t.Fatalf("version: %v %q", err, out)
	}
}
