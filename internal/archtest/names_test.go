package archtest

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// root is the module's root, seen from this package's directory.
const root = "../.."

// TestFileNamesSayTheirConcern: a file is named for what it does, not
// prefixed with its package's name, which the directory already says
// (upgrade/canary.go, not upgrade/upgrade_canary.go). The package's own
// <package>.go and <package>_test.go are the exception.
func TestFileNamesSayTheirConcern(t *testing.T) {
	for path, pkg := range goFiles(t) {
		base := strings.TrimSuffix(filepath.Base(path), ".go")
		if base == pkg || base == pkg+"_test" || pkg == "main" {
			continue
		}
		if strings.HasPrefix(base, pkg+"_") {
			t.Errorf("%s: named after its package %s; name it for its concern (%s.go)", path, pkg, strings.TrimPrefix(base, pkg+"_"))
		}
	}
}

// goFileName is a Go file named in prose: "firmware.go",
// "activities/bmc/power.go".
var goFileName = regexp.MustCompile(`[A-Za-z0-9_./-]*[A-Za-z0-9_]\.go\b`)

// TestDocFilesNameFilesThatExist: a doc.go that names a file (better: none,
// describing the package instead) names one that exists, beside it or
// from the module's root.
func TestDocFilesNameFilesThatExist(t *testing.T) {
	n := 0
	for path := range goFiles(t) {
		if filepath.Base(path) != "doc.go" {
			continue
		}
		n++
		b, err := os.ReadFile(filepath.Join(root, path))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range goFileName.FindAllString(string(b), -1) {
			if !exists(filepath.Join(root, filepath.Dir(path), name)) && !exists(filepath.Join(root, name)) {
				t.Errorf("%s names %s, which is not there: describe the package rather than list its files", path, name)
			}
		}
	}
	if n < 10 {
		t.Fatalf("found only %d doc.go files: the walk is broken", n)
	}
}

// goFiles maps every Go file of the module (relative to its root, bin/,
// testdata and tools modules aside) to its package name.
func goFiles(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); p != root && (n == "testdata" || n == "bin" || strings.HasPrefix(n, ".") || exists(filepath.Join(p, "go.mod"))) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.PackageClauseOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		out[rel] = strings.TrimSuffix(f.Name.Name, "_test")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
