package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Bad input the CLI refuses before it connects anywhere: each refusal
// exits 1 and names the field, the value or what is allowed. --address
// points at a closed port, so a command that got as far as dialling would
// fail with a connection error instead and the case would catch it.
// (Mistakes only a running site can judge are in test/actions/badinput_test.go.)
func TestBadInputCLI(t *testing.T) {
	base, err := os.ReadFile("../examples/two-rack.yaml")
	if err != nil {
		t.Fatal(err)
	}
	inv := func(old, new string) string {
		t.Helper()
		s := string(base)
		if old != "" && !strings.Contains(s, old) {
			t.Fatalf("example lacks %q", old)
		}
		p := filepath.Join(t.TempDir(), "inv.yaml")
		if err := os.WriteFile(p, []byte(strings.Replace(s, old, new, 1)), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	file := func(content string) string {
		p := filepath.Join(t.TempDir(), "f")
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	validate := func(path string) []string { return []string{"cluster", "validate", "--inventory", path} }
	upgrade := func(flags ...string) []string {
		return append([]string{"upgrade", "start", "--address", "127.0.0.1:1", "--cluster", "lab-two", "--version", "4.2.0"}, flags...)
	}
	bmm := func(action string, flags ...string) []string {
		return append([]string{"bmm", action, "--address", "127.0.0.1:1", "--cluster", "lab-two", "--bmm", "rack1-c1"}, flags...)
	}
	type badCase struct {
		name string
		args []string
		want []string
	}
	cases := []badCase{
		// Inventory: parse and validate.
		{"unknown field", validate(inv("runtimeVersion: 4.1.2", "runtimeVersion: 4.1.2\ncolour: blue")), []string{"colour"}},
		{"wrong type", validate(inv("runtimeVersion: 4.1.2", "runtimeVersion: [4, 1, 2]")), []string{"runtimeVersion"}},
		{"bad version", validate(inv("runtimeVersion: 4.1.2", "runtimeVersion: 4.1")), []string{"runtimeVersion", "4.1"}},
		{"inline password", validate(inv("{usernameEnv: BMC_USERNAME, passwordEnv: BMC_PASSWORD}", "{username: admin, password: hunter2}")), []string{"password"}},
		{"unknown role", validate(inv("role: management", "role: manager")), []string{"role", "manager", "management"}},
		{"bad MAC", validate(inv(`bootMACAddress: "52:54:00:01:00:01"`, `bootMACAddress: "52:54:00:01:00"`)), []string{"bootMACAddress", "52:54:00:01:00"}},
		{"duplicate server", validate(inv("- name: rack1-mgmt2", "- name: rack1-mgmt1")), []string{"rack1-mgmt1"}},
		{"BMC address not a URL", validate(inv(`address: "https://10.0.1.11"`, `address: "10.0.1.11"`)), []string{"address", "10.0.1.11"}},
		{"no cluster name", validate(inv("cluster: lab-two", "cluster: \"\"")), []string{"cluster"}},
		{"empty file", validate(file("")), []string{"empty"}},
		{"not YAML", validate(file("racks: [")), []string{"not valid YAML"}},
		{"missing file", validate(filepath.Join(t.TempDir(), "nope.yaml")), []string{"nope.yaml"}},
		// Upgrade strategy and flags.
		{"no version", []string{"upgrade", "start", "--cluster", "lab-two"}, []string{"--version", "required"}},
		{"unknown strategy", upgrade("--strategy", "Fast"), []string{"strategyType", "Fast", "Rack, PauseAfterRack"}},
		{"unknown threshold type", upgrade("--threshold-type", "Most"), []string{"thresholdType", "Most", "CountSuccess, PercentSuccess"}},
		{"percent above 100", upgrade("--threshold-value", "120"), []string{"thresholdValue", "120", "above 100"}},
		{"wait above 60", upgrade("--wait-time-minutes", "61"), []string{"waitTimeMinutes", "61", "between 0 and 60"}},
		{"negative maxUnavailable", upgrade("--max-unavailable", "-2"), []string{"maxUnavailable", "-2"}},
		{"threshold not a number", upgrade("--threshold-value", "eighty"), []string{"threshold-value", "eighty"}},
		// BMM actions.
		{"replace: storage policy", bmm("replace", "--storage-policy", "Keep"), []string{"storagePolicy", "Keep", "Preserve, DiscardAll"}},
		{"replace: boot MAC", bmm("replace", "--boot-mac-address", "xyz"), []string{"bootMacAddress", "xyz"}},
		{"replace: a secret as credentials", bmm("replace", "--bmc-credentials", "root:calvin"), []string{"bmcCredentials", "never a username or password"}},
		// Break-glass: every problem at once, before dialling.
		{"force without reason", bmm("restart", "--force"), []string{"reason is empty", "--reason"}},
		{"reason without force", bmm("restart", "--reason", "x"), []string{`reason "x" given without force`}},
		{"force, no reason and a bad policy", bmm("replace", "--force", "--storage-policy", "Keep"), []string{"storagePolicy", "Keep", "reason is empty"}},
		{"troubleshoot: force, no reason, bad problem", []string{"bmm", "troubleshoot", "--address", "127.0.0.1:1", "--cluster", "lab-two", "--bmm", "rack1-c1", "--problem", "flaky", "--force"},
			[]string{`problem "flaky"`, "reason is empty"}},
		{"troubleshoot: apply-firmware with force", bmm("troubleshoot", "--problem", "hardware", "--apply-firmware", "--force", "--reason", "INC-1"),
			[]string{"applyFirmware and force both true (--apply-firmware, --force)"}},
		{"resume without cluster or reason", []string{"cluster", "resume", "--address", "127.0.0.1:1"}, []string{"--cluster is required", "--reason is required"}},
		{"resume: reason on two lines", []string{"cluster", "resume", "--address", "127.0.0.1:1", "--cluster", "lab-two", "--reason", "a\nb"}, []string{"spans lines"}},
		{"lease release: nothing given", []string{"lease", "release", "--address", "127.0.0.1:1"}, []string{"--cluster is required", "--bmm is required", "--reason is required"}},
		// Self-upgrade: every problem at once, before dialling.
		{"rollout: no build, ramp 0", []string{"self-upgrade", "rollout", "--address", "127.0.0.1:1", "--ramp", "0"}, []string{"--build is required", "--ramp 0", "1..99"}},
		{"rollout: ramp 100, bad scale-down", []string{"self-upgrade", "rollout", "--address", "127.0.0.1:1", "--build", "b", "--ramp", "100", "--scale-down", "w"},
			[]string{"--ramp 100", `--scale-down "w"`, "NAMESPACE/DEPLOYMENT"}},
		{"rollback: no wait, bad deployment", []string{"self-upgrade", "rollback", "--address", "127.0.0.1:1", "--wait", "0s", "--deployment", "a:b"},
			[]string{"--wait 0s", "--deployment", `"a:b"`}},
		{"status: bad deployment", []string{"self-upgrade", "status", "--address", "127.0.0.1:1", "--deployment", "__x"}, []string{"--deployment", `"__x"`}},
		// Fleets: the spec's shape and the rollout's flags, every problem at once.
		{"fleet create: all wrong", []string{"fleet", "create", "--address", "127.0.0.1:1", "--clusters", "a,a", "--canary", "z", "--wave-size", "-1", "--bake-minutes", "99999"},
			[]string{"name", "required", `clusters[1]: "a"`, "listed twice", `canary[0]: "z"`, "waveSize", "bakeMinutes", "99999"}},
		{"fleet create: waves and wave size", []string{"fleet", "create", "--address", "127.0.0.1:1", "--name", "w", "--clusters", "a,b,c", "--wave-size", "1", "--waves", "b;b,c"},
			[]string{"either waveSize or waves", `waves[1][0]: "b"`, "already in waves[0]"}},
		{"fleet create: a file with an unknown field", []string{"fleet", "create", "--address", "127.0.0.1:1", "--file", file("name: w\nclusters: [a]\nwaveSize: 1\nbake: 5\n")},
			[]string{"--file", "bake"}},
		{"fleet start: no name, bad version and strategy", []string{"fleet", "start", "--address", "127.0.0.1:1", "--version", "4.2", "--strategy", "Fast"},
			[]string{"--name", "required", `--version "4.2"`, "strategyType", "Fast"}},
	}
	if withLab {
		cases = append(cases, []badCase{
			{"lab check without --events", []string{"lab", "check"}, []string{"--events is required"}},
			{"lab check: log not JSON Lines", []string{"lab", "check", "--events", file("{not json}\n")}, []string{"read event log"}},
			{"lab check: negative floor", []string{"lab", "check", "--events", file(""), "--min-active-kcp", "-1"}, []string{"--min-active-kcp", "-1"}},
		}...)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, err := run(t, tc.args...)
			if err == nil {
				t.Fatalf("accepted; want a refusal (stderr %s)", stderr)
			}
			var ce *codedError
			if errors.As(err, &ce) && ce.code != exitError {
				t.Fatalf("exit %d, want %d for bad input: %v", ce.code, exitError, err)
			}
			if strings.Contains(err.Error(), "connect to Temporal") {
				t.Fatalf("dialled before refusing: %v", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
		})
	}
}
