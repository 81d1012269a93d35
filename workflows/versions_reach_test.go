package workflows

import (
	"go/ast"
	"go/parser"
	"go/token"
	"testing"
)

// fnKey names a function or method of workflows/... by its package and
// name; methods of different types that share a name share a key, which
// only widens what counts as reached.
type fnKey struct{ pkg, name string }

// reachable maps each package of workflows/... to the functions its code
// can call, by name: a plain name calls that function of the same package,
// pkg.Name that function of the package, and x.Name every function or
// method so named in the same package or the kernel (the receiver's type
// is not resolved; a family imports no other workflow package, which
// internal/archtest enforces). A
// closure's body belongs to the function it is written in. What a run of
// a family records is then its package's IDs and the kernel's whose
// GetVersion sits in a reached function: the kernel's steps for a BMM's
// reimage are never run by the upgrade parent, so they do not count
// against its list.
func reachable(files []*ast.File) map[string]map[fnKey]bool {
	calls := map[fnKey][]fnKey{}
	byName := map[string][]fnKey{}
	perPkg := map[string][]fnKey{}
	for _, f := range files {
		pkg := f.Name.Name
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok {
				k := fnKey{pkg, fd.Name.Name}
				byName[k.name] = append(byName[k.name], k)
				perPkg[pkg] = append(perPkg[pkg], k)
			}
		}
	}
	for _, f := range files {
		pkg := f.Name.Name
		for _, d := range f.Decls {
			// A package-level declaration (a var holding a function) is
			// reached with its package: a root of its own.
			k, body := fnKey{pkg, "<package>"}, ast.Node(d)
			if fd, ok := d.(*ast.FuncDecl); ok {
				k, body = fnKey{pkg, fd.Name.Name}, fd.Body
			} else {
				perPkg[pkg] = append(perPkg[pkg], k)
			}
			if body == nil {
				continue
			}
			ast.Inspect(body, func(n ast.Node) bool {
				switch e := n.(type) {
				case *ast.SelectorExpr:
					if x, ok := e.X.(*ast.Ident); ok && len(perPkg[x.Name]) > 0 {
						calls[k] = append(calls[k], fnKey{x.Name, e.Sel.Name})
					}
					for _, m := range byName[e.Sel.Name] {
						if m.pkg == pkg || m.pkg == "kernel" { // a family calls only its own code and kernel's (archtest)
							calls[k] = append(calls[k], m)
						}
					}
				case *ast.Ident:
					calls[k] = append(calls[k], fnKey{pkg, e.Name})
				}
				return true
			})
		}
	}
	out := map[string]map[fnKey]bool{}
	for pkg, roots := range perPkg {
		seen := map[fnKey]bool{}
		todo := append([]fnKey(nil), roots...)
		for len(todo) > 0 {
			k := todo[len(todo)-1]
			todo = todo[:len(todo)-1]
			if seen[k] {
				continue
			}
			seen[k] = true
			todo = append(todo, calls[k]...)
		}
		out[pkg] = seen
	}
	return out
}

// kernelIDReached: some kernel GetVersion site of id is in a function of
// reached.
func kernelIDReached(sites []versionSite, reached map[fnKey]bool, id string) bool {
	for _, s := range sites {
		if s.pkg == "kernel" && s.id == id && reached[fnKey{"kernel", s.fn}] {
			return true
		}
	}
	return false
}

// reachable on made-up sources: a family that calls a kernel function
// reaches what that one calls, by name or through a method, and nothing
// else of the kernel.
func TestReachableFollowsCallsByName(t *testing.T) {
	src := map[string]string{
		"kernel": `package kernel
func Gate() { openLease() }
func openLease() {}
func (s *Steps) Reimage() { inBand() }
func inBand() {}
func Unused() {}`,
		"upgrade": `package upgrade
var start = kernel.Gate
func retire(st *kernel.Steps) { local() }
func local() { st.Reimage() }`,
		"cluster": `package cluster
func run() {}`,
	}
	var files []*ast.File
	for _, s := range src {
		f, err := parser.ParseFile(token.NewFileSet(), "", s, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	r := reachable(files)
	for _, fn := range []string{"Gate", "openLease", "Reimage", "inBand"} {
		if !r["upgrade"][fnKey{"kernel", fn}] {
			t.Errorf("upgrade should reach kernel.%s", fn)
		}
	}
	if r["upgrade"][fnKey{"kernel", "Unused"}] || r["cluster"][fnKey{"kernel", "Gate"}] {
		t.Errorf("reached what nothing calls: %v", r)
	}
}
