package main

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"
)

// Every read command takes -o table|json|yaml. Each case runs with -o yaml
// and the flags it needs, against a closed port: a command that needs
// Temporal gets as far as dialling (so -o yaml was parsed and accepted),
// one that runs offline prints YAML. -o xml is refused before any of that.
// The walk over the command tree fails when a command gains -o without a
// case here, or a listed read command loses it.
func TestReadCommandsOutputFlag(t *testing.T) {
	events := filepath.Join(t.TempDir(), "events.jsonl")
	if err := os.WriteFile(events, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	ks := filepath.Join(t.TempDir(), "keyset.yaml")
	if err := os.WriteFile(ks, []byte("name: oncall\nkind: bmm\nprivilegeLevel: standard\nexpiration: 2099-01-01T00:00:00Z\nusers:\n  - name: alice\n    sshPublicKey: "+testPublicKey+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const dial = "connect to Temporal"
	type readCase struct {
		cmd  string
		args []string
		want string // error wanted with -o yaml; "" means it succeeds offline
	}
	cases := []readCase{
		{"cluster validate", []string{"--inventory", "../examples/two-rack.yaml"}, ""},
		{"cluster show", []string{"--cluster", "lab-two"}, dial},
		{"cluster history", []string{"--cluster", "lab-two", "--bmm", "rack1-c1"}, dial},
		{"upgrade plan", []string{"--cluster", "lab-two", "--version", "4.2.0"}, dial},
		{"upgrade status", []string{"--cluster", "lab-two"}, dial},
		{"remediation list", []string{"--cluster", "lab-two"}, dial},
		{"remediation show", []string{"--cluster", "lab-two", "--bmm", "rack1-c1"}, dial},
		{"cluster resume", []string{"--cluster", "lab-two", "--reason", "INC-1"}, dial},
		{"cluster register", []string{"--inventory", "../examples/two-rack.yaml", "--plan"}, dial},
		{"lease release", []string{"--cluster", "lab-two", "--bmm", "rack1-c1", "--reason", "INC-1"}, dial},
		{"bmm troubleshoot-status", []string{"--cluster", "lab-two", "--bmm", "rack1-c1"}, dial},
		{"bmm firmware", []string{"--cluster", "lab-two", "--bmm", "rack1-c1"}, dial},
		{"keyset create", []string{"--cluster", "lab-two", "--file", ks}, dial},
		{"keyset update", []string{"--cluster", "lab-two", "--file", ks}, dial},
		{"keyset delete", []string{"--cluster", "lab-two", "--name", "oncall"}, dial},
		{"keyset list", []string{"--cluster", "lab-two"}, dial},
		{"keyset show", []string{"--cluster", "lab-two", "--name", "oncall"}, dial},
		{"fleet create", []string{"--name", "weekly", "--clusters", "a,b", "--wave-size", "1"}, dial},
		{"fleet plan", []string{"--name", "weekly"}, dial},
		{"fleet start", []string{"--name", "weekly", "--version", "4.2.0"}, dial},
		{"fleet status", []string{"--name", "weekly"}, dial},
		{"fleet pause", []string{"--name", "weekly"}, dial},
		{"fleet continue", []string{"--name", "weekly"}, dial},
		{"fleet cancel", []string{"--name", "weekly"}, dial},
		// An example site is not reachable from here: every BMM is a blocker.
		{"site check", []string{"--inventory", "../examples/two-rack.yaml", "--timeout", "500ms"}, "blockers"},
	}
	if withLab {
		cases = append(cases, []readCase{
			{"lab status", []string{"--inventory", "../examples/two-rack.yaml"}, "no labAdmin"},
			{"lab rack", []string{"--inventory", "../examples/two-rack.yaml", "--rack", "rack2"}, "no labAdmin"},
			{"lab check", []string{"--events", events, "--inventory", "../examples/two-rack.yaml"}, ""},
		}...)
	}
	var listed []string
	for _, tc := range cases {
		listed = append(listed, tc.cmd)
		args := append(append(strings.Fields(tc.cmd), tc.args...), "--address", "127.0.0.1:1")
		t.Run(tc.cmd+" -o yaml", func(t *testing.T) {
			out, _, err := run(t, append(args, "-o", "yaml")...)
			if tc.want != "" {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("want an error with %q (past flag parsing), got %v", tc.want, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var v any
			if err := yaml.Unmarshal([]byte(out), &v); err != nil {
				t.Fatalf("not YAML: %v\n%s", err, out)
			}
		})
		t.Run(tc.cmd+" -o xml", func(t *testing.T) {
			_, _, err := run(t, append(args, "-o", "xml")...)
			if err == nil || !strings.Contains(err.Error(), `-o "xml": allowed table, json, yaml`) {
				t.Fatalf("want the -o refusal before anything runs, got %v", err)
			}
		})
	}
	var withFlag []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Flags().Lookup("output") != nil {
			withFlag = append(withFlag, strings.TrimPrefix(c.CommandPath(), "starter "))
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRoot())
	sort.Strings(listed)
	sort.Strings(withFlag)
	if strings.Join(listed, ",") != strings.Join(withFlag, ",") {
		t.Fatalf("commands with -o:\n  %v\nread commands tested here:\n  %v", withFlag, listed)
	}
}
