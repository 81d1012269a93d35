package model

import (
	"errors"
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
		{"zero value: the default label", NodeVersionSource{}, "4.1.2"},
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
