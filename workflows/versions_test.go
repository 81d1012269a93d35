package workflows

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// changeIDBudget is what the change IDs one run can record may take in the
// TemporalChangeVersion search attribute, encoded as the SDK does (a JSON
// array of "<id>-<version>"). The SDK stops adding entries once the
// encoded list reaches 2,048 bytes (sdk internal_event_handlers.go); this
// leaves half of it free. docs/design.md#change-ids gives today's figure.
const changeIDBudget = 1024

// changeIDWarn is the share of the budget a list may use before the test
// fails: the next squeeze is seen a feature early, while retiring an ID
// (or giving a child workflow its own package and list, as the server
// child has) can still be planned rather than forced.
const changeIDWarn = changeIDBudget * 80 / 100

// dynamicChangeIDs are the GetVersion sites whose ID is built at run time,
// each from a prefix constant of its package's versions.go. The one today
// is the ledger's registration: every register Update records
// changeRegisterReplans + ":" + the Update's ID (a UUID when the client
// sets none), so a ClusterWorkflow run records one entry per registration
// it handled. The test counts them: minRegistrations must fit in the
// budget next to the static IDs (see TestChangeIDs).
var dynamicChangeIDs = map[string]string{"cluster.joinRoles": "register-replans"}

// minRegistrations is how many register Updates one ClusterWorkflow run
// must be able to record within the budget. A registration is an operator
// changing the inventory; the ledger continues as new at 1,000 events or
// when the server suggests it, and a run past the SDK's limit loses only visibility entries
// (its markers, and so replay, are unaffected).
const minRegistrations = 8

// versionSite is one workflow.GetVersion call.
type versionSite struct {
	pkg, fn, where string
	id             string // the ID's constant value, "" when not a listed constant
	dynamic        string // the prefix, for a dynamic site
	max            int
}

// TestChangeIDs checks every package's change IDs: each GetVersion uses a
// constant listed in a versions.go (or is a known dynamic site), no ID is
// listed twice, and the IDs one run of a family's workflows can record
// (all of its package's and the kernel's its code can reach, a
// conservative bound: reachable) fit in 80 % of the budget.
func TestChangeIDs(t *testing.T) {
	lists, sites, files := parseVersions(t)
	reach := reachable(files)
	seen := map[string]string{}
	for pkg, l := range lists {
		for name, id := range l {
			if prev, ok := seen[id]; ok {
				t.Errorf("change ID %q listed twice: %s and %s.%s", id, prev, pkg, name)
			}
			seen[id] = pkg + "." + name
		}
	}
	maxOf := map[string]int{}
	for _, s := range sites {
		switch {
		case s.dynamic != "":
			if dynamicChangeIDs[s.pkg+"."+s.fn] != s.dynamic {
				t.Errorf("%s: GetVersion with an ID built at run time; list a constant in %s/versions.go (or, if it must be dynamic, account for it in dynamicChangeIDs)", s.where, s.pkg)
			}
		case s.id == "":
			t.Errorf("%s: GetVersion with an ID that is not a constant of a versions.go list", s.where)
		}
		maxOf[s.id+s.dynamic] = max(maxOf[s.id+s.dynamic], s.max)
	}
	for pkg := range lists {
		if pkg == "kernel" {
			continue
		}
		var entries []string
		for _, id := range lists[pkg] {
			entries = append(entries, fmt.Sprintf("%s-%d", id, max(maxOf[id], 1)))
		}
		for _, id := range lists["kernel"] {
			if kernelIDReached(sites, reach[pkg], id) {
				entries = append(entries, fmt.Sprintf("%s-%d", id, max(maxOf[id], 1)))
			}
		}
		size := encodedSize(entries)
		for _, prefix := range sortedValues(dynamicChangeIDs) {
			if !slices.Contains(sortedValues(lists[pkg]), prefix) {
				continue
			}
			one := encodedSize(append(slices.Clone(entries), prefix+":"+strings.Repeat("u", 36)+"-1")) - size
			fit := (changeIDBudget - size) / one
			t.Logf("%s: %d B static; each registration %d B more; %d fit in the budget", pkg, size, one, fit)
			if fit < minRegistrations {
				t.Errorf("%s: only %d registrations fit in the %d B change-ID budget after %d B of static IDs (want %d)", pkg, fit, changeIDBudget, size, minRegistrations)
			}
		}
		t.Logf("%s: %d IDs with the kernel's it reaches, %d B of %d B", pkg, len(entries), size, changeIDBudget)
		switch {
		case size > changeIDBudget:
			t.Errorf("%s: its workflows can record %d B of change IDs, over the %d B budget: retire an ID (docs/design.md#change-ids)", pkg, size, changeIDBudget)
		case size > changeIDWarn:
			t.Errorf("%s: its workflows can record %d B of change IDs, past 80 %% of the %d B budget (%d B): plan retiring an ID now (docs/design.md#change-ids)", pkg, size, changeIDBudget, changeIDWarn)
		}
	}
}

func encodedSize(entries []string) int {
	b, _ := json.Marshal(entries)
	return len(b)
}

func sortedValues(m map[string]string) []string {
	var out []string
	for _, v := range m {
		out = append(out, v)
	}
	slices.Sort(out)
	return out
}

// parseVersions reads the production sources of workflows/...: each
// package's versions.go constants, and every GetVersion call.
func parseVersions(t *testing.T) (map[string]map[string]string, []versionSite, []*ast.File) {
	t.Helper()
	fset := token.NewFileSet()
	lists := map[string]map[string]string{}
	var files []*ast.File
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() && d.Name() == "testdata" {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files = append(files, f)
		if filepath.Base(path) != "versions.go" {
			return nil
		}
		l := map[string]string{}
		for _, decl := range f.Decls {
			if gd, ok := decl.(*ast.GenDecl); ok && gd.Tok == token.CONST {
				for _, spec := range gd.Specs {
					vs := spec.(*ast.ValueSpec)
					for i, n := range vs.Names {
						if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
							l[n.Name], _ = strconv.Unquote(lit.Value)
						}
					}
				}
			}
		}
		lists[f.Name.Name] = l
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var sites []versionSite
	for _, f := range files {
		pkg := f.Name.Name
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok {
				continue
			}
			params := map[string]bool{}
			for _, p := range fd.Type.Params.List {
				for _, n := range p.Names {
					params[n.Name] = true
				}
			}
			ast.Inspect(fd, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok || len(call.Args) != 4 {
					return true
				}
				if sel, ok := call.Fun.(*ast.SelectorExpr); !ok || sel.Sel.Name != "GetVersion" {
					return true
				}
				s := versionSite{pkg: pkg, fn: fd.Name.Name, where: fset.Position(call.Pos()).String()}
				if lit, ok := call.Args[3].(*ast.BasicLit); ok {
					s.max, _ = strconv.Atoi(lit.Value)
				}
				switch a := call.Args[1].(type) {
				case *ast.Ident:
					if params[a.Name] {
						s.dynamic = dynamicChangeIDs[pkg+"."+fd.Name.Name]
						if s.dynamic == "" {
							s.dynamic = "?"
						}
					} else {
						s.id = lists[pkg][a.Name]
					}
				case *ast.SelectorExpr:
					if x, ok := a.X.(*ast.Ident); ok {
						s.id = lists[x.Name][a.Sel.Name]
					}
				}
				sites = append(sites, s)
				return true
			})
		}
	}
	return lists, sites, files
}
