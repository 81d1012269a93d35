package model

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"sigs.k8s.io/yaml"
)

// FuzzParseInventory: any bytes give an inventory or a *ValidationError
// whose problems each name a field, never a panic; an inventory that parses
// validates without panicking and survives a YAML round trip unchanged.
func FuzzParseInventory(f *testing.F) {
	files, _ := filepath.Glob("../../examples/*.yaml")
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	for _, s := range []string{"", "null", "cluster: x", "racks: 3", "cluster: [a]\nracks: [{name: r, servers: [{}]}]",
		"{\"cluster\": \"x\", \"unknown\": 1}", "runtimeVersion: 4.1.2\nracks:\n- name: rack1\n  servers:\n  - name: a\n    role: kcp\n",
		"bmcCredentials: {default: {username: admin, password: hunter2}}", "remediation: {interval: -1m}", "\t:", "a: &a [*a]"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		inv, err := ParseInventory(data)
		if err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) || len(ve.Problems) == 0 {
				t.Fatalf("error is not a ValidationError with problems: %v", err)
			}
			for _, p := range ve.Problems {
				// Every problem names its field ("inventory" for the
				// document itself) and says what is wrong.
				if p.Message == "" || p.Field == "" {
					t.Fatalf("problem without a field or message: %+v", p)
				}
			}
			return
		}
		if inv == nil {
			t.Fatal("nil inventory without error")
		}
		_ = inv.Validate()
		_ = inv.ValidateForSite()
		out, err := yaml.Marshal(inv)
		if err != nil {
			t.Fatalf("marshal a parsed inventory: %v", err)
		}
		again, err := ParseInventory(out)
		if err != nil {
			t.Fatalf("a marshalled inventory does not parse: %v\n%s", err, out)
		}
		out2, err := yaml.Marshal(again)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out, out2) {
			t.Fatalf("round trip changed the inventory:\n%s\n---\n%s", out, out2)
		}
	})
}
