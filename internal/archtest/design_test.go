package archtest

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// design is the page whose layers table says in prose what layerOf says
// in code.
const design = "docs/design.md"

// backticked is a `name` in a Markdown cell.
var backticked = regexp.MustCompile("`([^`]+)`")

// TestDesignLayersTableIsTrue parses docs/design.md's layers table and
// fails when it is not what layerOf applies: a row for a layer the test
// does not know, a package named in it that does not exist or sits in
// another layer, or a layerOf entry (and so a package of the module) that
// the table does not place.
func TestDesignLayersTableIsTrue(t *testing.T) {
	rows := layersTable(t)
	known := map[string]bool{}
	for _, l := range layerOf {
		known[l] = true
	}
	for l, cell := range rows {
		if !known[l] {
			t.Errorf("%s: the layers table has a row %q, which is no layer of layerOf", design, l)
		}
		for _, m := range backticked.FindAllStringSubmatch(cell, -1) {
			name, tree := strings.CutSuffix(m[1], "/...")
			if !isPackageDir(name, tree) {
				t.Errorf("%s: the %s row names `%s`, which is not a package directory of the module", design, l, m[1])
			} else if got := layer(name); got != l {
				t.Errorf("%s: the %s row names `%s`, which layerOf puts in %s", design, l, m[1], got)
			}
		}
	}
	for prefix, l := range layerOf {
		cell, ok := rows[l]
		placed := ok && (prefix == "." && strings.Contains(cell, "the module root") ||
			strings.Contains(cell, "`"+prefix+"`") || strings.Contains(cell, "`"+prefix+"/...`"))
		if !placed {
			t.Errorf("%s: the layers table does not place %s (layer %s): name it in that row", design, prefix, l)
		}
	}
}

// layersTable maps each row's layer to its packages cell, from the first
// table under the heading "## Layers".
func layersTable(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, design))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n## Layers")
	if !ok {
		t.Fatalf("%s: no section \"## Layers\"", design)
	}
	rows := map[string]string{}
	for _, line := range strings.Split(section, "\n") {
		if strings.HasPrefix(line, "## ") || strings.HasPrefix(line, "### ") {
			break
		}
		if !strings.HasPrefix(line, "|") || strings.HasPrefix(line, "|---") || strings.HasPrefix(line, "| layer ") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), " | ")
		if len(cells) != 3 {
			t.Errorf("%s: layers table row with %d cells, want 3 (layer, packages, may import): %s", design, len(cells), line)
			continue
		}
		rows[strings.TrimSpace(cells[0])] = cells[1]
	}
	if len(rows) < 10 {
		t.Fatalf("%s: found %d rows in the layers table: the parse is broken", design, len(rows))
	}
	return rows
}

// isPackageDir: name is a directory of the module holding Go files (or,
// for a tree, "name/...", any directory).
func isPackageDir(name string, tree bool) bool {
	entries, err := os.ReadDir(filepath.Join(root, name))
	return err == nil && (tree || slices.ContainsFunc(entries, func(e os.DirEntry) bool { return strings.HasSuffix(e.Name(), ".go") }))
}
