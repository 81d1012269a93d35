package archtest

import (
	"errors"
	"fmt"
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

const rule = "docs/design.md#layers-and-what-each-may-import"

// TestLayers fails when a package of this module imports a layer it may
// not, when a pure package imports Temporal or I/O, or when a package is in
// no layer: in the production build (no tags) and in the lab build
// (-tags lab), where only the CLI may also import the lab.
func TestLayers(t *testing.T) {
	for _, b := range []struct {
		name  string
		tags  []string
		extra map[string][]string
	}{
		{"production build", nil, nil},
		{"lab build (-tags " + labTag + ")", []string{labTag}, labBuild},
	} {
		module, imports := load(t, b.tags...)
		if len(imports) < 20 {
			t.Fatalf("%s: found only %d packages in module %s: the walk is broken", b.name, len(imports), module)
		}
		t.Logf("%s: %d packages of %s checked", b.name, len(imports), module)
		for _, v := range check(module, imports, b.extra) {
			t.Errorf("%s: %s", b.name, v)
		}
	}
}

// TestCheckCatchesUpwardImports proves the checker on a made-up module
// whose every package breaks one rule.
func TestCheckCatchesUpwardImports(t *testing.T) {
	const m = "example.com/rr"
	imports := map[string][]string{
		m + "/workflows":                   {m + "/worker/wiring", m + "/workflows/upgrade", m + "/workflows/kernel"},
		m + "/activities/kube":             {m + "/workflows", m + "/activities/bmc"},
		m + "/internal/model":              {"go.temporal.io/sdk/workflow", m + "/internal/api"},
		m + "/worker/wiring":               {m + "/internal/lab/kubesim", m + "/test/e2e"},
		m + "/starter":                     {m + "/workflows", m + "/internal/lab", m + "/internal/invariants"},
		m + "/internal/lab/kubesim":        {m + "/activities/kube"},
		m + "/internal/somethingnew":       nil,
		m + "/internal/upgradeplan":        {m + "/internal/model/modeltest"},
		m + "/internal/api":                {"net/http"},
		m + "/activities/bmc/profile":      {m + "/activities/bmc"}, // inside one activity package: fine
		m + "/workflows/upgrade":           {m + "/workflows", m + "/activities/kube", m + "/workflows/kernel"},
		m + "/workflows/remediation":       {m + "/workflows/actions"},
		m + "/workflows/kernel":            {m + "/workflows/cluster"},
		m + "/workflows/actions":           {m + "/workflows/internal/wftest", m + "/workflows/kernel"},
		m + "/workflows/cluster/sub":       {m + "/workflows/kernel"},
		m + "/workflows/newfamily":         {m + "/workflows/kernel"},
		m + "/workflows/internal/wftest":   {m + "/activities/kube", m + "/internal/api"},
		m + "/internal/sitecheck":          {m + "/internal/lab/kubesim"},
		m + "/activities/bmc":              {"github.com/stmcginnis/gofish/redfish"},
		m + "/activities/bmc/gofishclient": {"github.com/stmcginnis/gofish"},
	}
	got := strings.Join(check(m, imports, nil), "\n")
	for _, want := range []string{
		"workflows imports worker/wiring (wiring)",
		"activities/kube imports workflows (workflows)",
		"activities/kube imports activities/bmc (activities)",
		"internal/model imports go.temporal.io/sdk/workflow",
		"internal/model imports internal/api (contract)",
		"worker/wiring imports internal/lab/kubesim (lab)",
		"worker/wiring imports test/e2e (harness)",
		"starter imports workflows (workflows)",
		"starter imports internal/lab (lab)",
		"starter imports internal/invariants (labcheck)",
		"internal/lab/kubesim imports activities/kube (activities)",
		"internal/somethingnew is in no layer",
		"internal/upgradeplan imports internal/model/modeltest (harness)",
		"internal/api imports net/http",
		"workflows/upgrade imports workflows (workflow family workflows)",
		"workflows/remediation imports workflows/actions (workflow family workflows/actions)",
		"workflows/kernel imports workflows/cluster (workflow family workflows/cluster)",
		"workflows/actions imports workflows/internal/wftest (harness)",
		"workflows/newfamily is in no workflow family",
		"internal/sitecheck imports internal/lab/kubesim (lab)",
		"activities/bmc imports github.com/stmcginnis/gofish/redfish: only activities/bmc/gofishclient does",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("check missed %q; it reported:\n%s", want, got)
		}
	}
	for _, fine := range []string{"activities/bmc/profile imports", "activities/bmc/gofishclient imports", "workflows/upgrade imports activities/kube", "workflows/upgrade imports workflows/kernel",
		"workflows/actions imports workflows/kernel", "workflows/cluster/sub imports", "workflows imports workflows/", "workflows/internal/wftest imports"} {
		if strings.Contains(got, fine) {
			t.Errorf("check reported an allowed import (%s…):\n%s", fine, got)
		}
	}
}

// In the lab build the CLI may import the lab and its checker, and nothing
// else changes: production code still may not.
func TestLabBuildLetsOnlyTheCLIImportTheLab(t *testing.T) {
	const m = "example.com/rr"
	imports := map[string][]string{
		m + "/starter":             {m + "/internal/lab", m + "/internal/invariants", m + "/workflows"},
		m + "/worker/wiring":       {m + "/internal/lab/kubesim"},
		m + "/activities/kube":     {m + "/internal/invariants"},
		m + "/internal/invariants": {m + "/internal/lab/events"},
	}
	got := strings.Join(check(m, imports, labBuild), "\n")
	for _, want := range []string{"starter imports workflows (workflows)", "worker/wiring imports internal/lab/kubesim (lab)",
		"activities/kube imports internal/invariants (labcheck)"} {
		if !strings.Contains(got, want) {
			t.Errorf("check missed %q; it reported:\n%s", want, got)
		}
	}
	for _, fine := range []string{"starter imports internal/lab", "starter imports internal/invariants", "internal/invariants imports"} {
		if strings.Contains(got, fine) {
			t.Errorf("check reported an allowed import (%s…):\n%s", fine, got)
		}
	}
}

// check returns one line per broken rule, sorted; extra is what the build
// lets a layer import beyond mayImport (labBuild, or nil).
func check(module string, imports map[string][]string, extra map[string][]string) []string {
	var out []string
	for path, imps := range imports {
		rel := relative(module, path)
		from := layer(rel)
		if from == "" {
			out = append(out, fmt.Sprintf("%s is in no layer: add it to layerOf (internal/archtest/layers_test.go) and to %s", rel, rule))
			continue
		}
		for _, imp := range imps {
			if imp != module && !strings.HasPrefix(imp, module+"/") {
				for prefix, only := range onlyIn {
					if strings.HasPrefix(imp, prefix) && rel != only {
						out = append(out, fmt.Sprintf("%s imports %s: only %s does (%s)", rel, imp, only, rule))
					}
				}
				if pure[from] {
					for _, p := range ioPrefixes {
						if strings.HasPrefix(imp, p) {
							out = append(out, fmt.Sprintf("%s imports %s: a %s package knows nothing of Temporal or I/O (%s)", rel, imp, from, rule))
						}
					}
				}
				continue
			}
			to := relative(module, imp)
			if from == workflows && layer(to) == workflows {
				out = append(out, checkFamily(rel, to)...)
				continue
			}
			if allowed(from, rel, to, extra) {
				continue
			}
			out = append(out, fmt.Sprintf("%s imports %s (%s): a %s package may import only %s%s (%s)",
				rel, to, layerName(to), from, strings.Join(slices.Concat(mayImport[from], extra[from]), ", "), labHint(to), rule))
		}
	}
	sort.Strings(out)
	return out
}

// checkFamily applies familyImports to an import inside the workflows
// layer.
func checkFamily(rel, to string) []string {
	ff, ft := family(rel), family(to)
	switch {
	case ff == "":
		return []string{fmt.Sprintf("%s is in no workflow family: add it to familyImports (internal/archtest/layers_test.go) and to %s", rel, rule)}
	case ft == "" || ff == ft || slices.Contains(familyImports[ff], ft):
		return nil // a target in no family is reported on its own
	}
	may := "no other workflow package"
	if l := familyImports[ff]; len(l) > 0 {
		may = "only " + strings.Join(l, ", ")
	}
	return []string{fmt.Sprintf("%s imports %s (workflow family %s): %s may import %s; what one family needs of another goes through kernel (%s)",
		rel, to, ft, ff, may, rule)}
}

func allowed(from, rel, to string, extra map[string][]string) bool {
	l := layer(to)
	if l == "" {
		return true // reported on its own as in no layer
	}
	if from == activities && l == activities {
		return top(rel, 2) == top(to, 2) // within one activity package only
	}
	return slices.Contains(mayImport[from], l) || slices.Contains(extra[from], l)
}

// labHint says where lab code goes when an import of the lab is refused.
func labHint(to string) string {
	if l := layer(to); l == lab || l == labcheck {
		return "; production code never links the lab: the CLI's lab commands are files built with -tags " + labTag + " (starter/lab_build.go)"
	}
	return ""
}

func layerName(rel string) string {
	if l := layer(rel); l != "" {
		return l
	}
	return "no layer"
}

// top is the first n elements of a slash path.
func top(rel string, n int) string {
	parts := strings.SplitN(rel, "/", n+1)
	return strings.Join(parts[:min(n, len(parts))], "/")
}

func relative(module, path string) string {
	if path == module {
		return "."
	}
	return strings.TrimPrefix(path, module+"/")
}

// load reads every package of the module from source, without the go
// command: import path → the imports of its non-test files (for the
// current GOOS/GOARCH and the build tags given, as such a build sees them).
// Nested modules (hack/k8s, hack/tctl), testdata and hidden directories are
// not part of it.
func load(t *testing.T, tags ...string) (module string, imports map[string][]string) {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	module = modulePath(t, filepath.Join(root, "go.mod"))
	ctx := build.Default
	ctx.BuildTags = tags
	imports = map[string][]string{}
	err = filepath.WalkDir(root, func(dir string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if dir != root {
			if strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "vendor" {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				return filepath.SkipDir
			}
		}
		p, err := ctx.ImportDir(dir, 0)
		var noGo *build.NoGoError
		if errors.As(err, &noGo) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", dir, err)
		}
		rel, _ := filepath.Rel(root, dir)
		path := module
		if rel != "." {
			path += "/" + filepath.ToSlash(rel)
		}
		imports[path] = p.Imports
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return module, imports
}

func modulePath(t *testing.T, gomod string) string {
	t.Helper()
	b, err := os.ReadFile(gomod)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`)
		}
	}
	t.Fatalf("%s has no module line", gomod)
	return ""
}
