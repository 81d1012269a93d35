package model

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestNodeVersionSourceRead(t *testing.T) {
	labels := map[string]string{LabelRuntimeVersion: "4.1.2", "example.com/os": "4.2.0"}
	const osImage = "rackroll 4.3.1 (lab)"
	for _, tc := range []struct {
		name string
		src  NodeVersionSource
		want string
	}{
		{"zero value: the osImage's version, not the stale label", NodeVersionSource{}, "4.3.1"},
		{"the label, when declared", NodeVersionSource{Label: LabelRuntimeVersion}, "4.1.2"},
		{"another label", NodeVersionSource{Label: "example.com/os"}, "4.2.0"},
		{"a label the node lacks", NodeVersionSource{Label: "example.com/none"}, ""},
		{"osImage pattern", NodeVersionSource{OSImagePattern: `^rackroll ([0-9.]+) `}, "4.3.1"},
		{"osImage pattern, no match", NodeVersionSource{OSImagePattern: `^Ubuntu ([0-9.]+)`}, ""},
		{"pattern wins over labels", NodeVersionSource{OSImagePattern: `rackroll (\S+)`}, "4.3.1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.src.Read(labels, osImage)
			if err != nil || got != tc.want {
				t.Fatalf("Read = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
	if _, err := (NodeVersionSource{OSImagePattern: `(a)(b)`}).Read(labels, osImage); err == nil {
		t.Fatal("a pattern with two groups must not be read")
	}
}

// The default reads the first major.minor.patch ParseVersion accepts, so
// a distribution's own version (leading zeros, two parts) is not taken
// for the runtime's.
func TestDefaultSourceReadsTheFirstVersionInOSImage(t *testing.T) {
	for osImage, want := range map[string]string{
		"rackroll 4.2.0 (lab)": "4.2.0",
		"Talos (v1.7.0)":       "1.7.0",
		"Flatcar Container Linux by Kinvolk 3815.2.0 (Oklo)": "3815.2.0",
		"Acme runtime 10.0.3.":                               "10.0.3",
		"Ubuntu 22.04.4 LTS":                                 "",
		"Debian GNU/Linux 12 (bookworm)":                     "",
		"Acme 4.2.0.1 build 5.6.7":                           "5.6.7",
		"":                                                   "",
	} {
		if got, err := (NodeVersionSource{}).Read(map[string]string{LabelRuntimeVersion: "9.9.9"}, osImage); err != nil || got != want {
			t.Errorf("osImage %q: Read = %q, %v; want %q", osImage, got, err, want)
		}
	}
}

func TestUnseenRefusesASourceThatCannotSeeTheRuntime(t *testing.T) {
	lab := func(node, v string) NodeShown {
		return NodeShown{Node: node, Shows: v, Recorded: "4.1.2", OSImage: "rackroll " + v + " (lab)", Labelled: "4.1.2"}
	}
	var src NodeVersionSource
	if got := src.Unseen([]NodeShown{lab("n1", "4.1.2"), lab("n2", "4.2.0")}, "4.2.0"); got != "" {
		t.Fatalf("the ledger's version and the target are both fine, got %q", got)
	}
	if got := src.Unseen(nil, "4.2.0"); got != "" {
		t.Fatalf("no nodes to judge, got %q", got)
	}
	// A left-behind node on a third version is a real difference, as long
	// as another node shows what the ledger says.
	if got := src.Unseen([]NodeShown{lab("n1", "4.1.2"), lab("n2", "4.1.9")}, "4.2.0"); got != "" {
		t.Fatalf("one node off the ledger is not a blind source, got %q", got)
	}
	ubuntu := NodeShown{Node: "n3", Recorded: "4.1.2", OSImage: "Ubuntu 22.04.4 LTS", Labelled: "4.1.2"}
	got := src.Unseen([]NodeShown{lab("n1", "4.1.2"), ubuntu}, "4.2.0")
	for _, want := range []string{"1 of 2 nodes show no runtime version through osImage", `n3 shows none (ledger 4.1.2, osImage "Ubuntu 22.04.4 LTS", label rackroll.io/runtime-version=4.1.2)`,
		"kubernetes.osImagePattern", "kubernetes.versionLabel", "register the cluster again"} {
		if !strings.Contains(got, want) {
			t.Errorf("refusal %q does not say %q", got, want)
		}
	}
	// Every node on another version than the ledger's: the source reads
	// something else (here a base OS's version before the runtime's).
	acme := func(node string) NodeShown {
		return NodeShown{Node: node, Shows: "2.3.1", Recorded: "4.1.2", OSImage: "Acme OS 2.3.1 (runtime 4.1.2)"}
	}
	var many []NodeShown
	for i := range 7 {
		many = append(many, acme(fmt.Sprintf("c%d", i)))
	}
	got = src.Unseen(many, "4.2.0")
	for _, want := range []string{"no node shows through osImage", "c0 shows 2.3.1 (ledger 4.1.2", "and 2 more", "kubernetes.osImagePattern"} {
		if !strings.Contains(got, want) {
			t.Errorf("refusal %q does not say %q", got, want)
		}
	}
	if got := (NodeVersionSource{OSImagePattern: `\(runtime ([0-9.]+)\)`}).Unseen([]NodeShown{{Node: "c0", Shows: "4.1.2", Recorded: "4.1.2"}}, "4.2.0"); got != "" {
		t.Fatalf("the pattern that reads the runtime passes, got %q", got)
	}
}

func TestNodeVersionSourceValidate(t *testing.T) {
	for _, tc := range []struct {
		name   string
		k      KubernetesSpec
		fields []string // problems, by field, in order
		msg    string
	}{
		{"defaults", KubernetesSpec{}, nil, ""},
		{"label", KubernetesSpec{VersionLabel: "example.com/os-version"}, nil, ""},
		{"pattern", KubernetesSpec{OSImagePattern: `^rackroll ([0-9.]+)`}, nil, ""},
		{"bad label", KubernetesSpec{VersionLabel: "not a label"}, []string{"kubernetes.versionLabel"}, "label key"},
		{"bad regexp", KubernetesSpec{OSImagePattern: `rackroll (`}, []string{"kubernetes.osImagePattern"}, "not a regular expression"},
		{"no group", KubernetesSpec{OSImagePattern: `rackroll [0-9.]+`}, []string{"kubernetes.osImagePattern"}, "0 capture groups, want exactly one"},
		{"two groups", KubernetesSpec{OSImagePattern: `(rackroll) ([0-9.]+)`}, []string{"kubernetes.osImagePattern"}, "2 capture groups"},
		{"both, and a bad pattern", KubernetesSpec{VersionLabel: "a/b", OSImagePattern: `x`},
			[]string{"kubernetes.osImagePattern", "kubernetes.osImagePattern"}, "not both"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inv := site(1, 3, 0)
			inv.Kubernetes.VersionLabel, inv.Kubernetes.OSImagePattern = tc.k.VersionLabel, tc.k.OSImagePattern
			err := inv.Validate()
			if tc.fields == nil {
				if err != nil {
					t.Fatalf("want valid, got %v", err)
				}
				return
			}
			var ve *ValidationError
			if !errors.As(err, &ve) || len(ve.Problems) != len(tc.fields) {
				t.Fatalf("want problems at %v, got %v", tc.fields, err)
			}
			for i, p := range ve.Problems {
				if p.Field != tc.fields[i] || (p.Value != tc.k.VersionLabel && p.Value != tc.k.OSImagePattern) {
					t.Errorf("problem %d = %v, want field %s naming the value", i, p, tc.fields[i])
				}
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error %q does not say %q", err, tc.msg)
			}
		})
	}
}

func TestInventoryCarriesTheVersionSource(t *testing.T) {
	inv, err := ParseInventory([]byte("cluster: a\nkubernetes: {kubeconfig: /k, osImagePattern: '^rackroll ([0-9.]+)'}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := inv.Kubernetes.NodeVersion(); got.OSImagePattern != `^rackroll ([0-9.]+)` || got.Label != "" {
		t.Fatalf("NodeVersion = %+v", got)
	}
}
