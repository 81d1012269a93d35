package workflows

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// Every wait is the operator's (docs/time-limits.md, issue 34): each wait a
// workflow builds — an activity's timeouts, a timer, a sleep, an await, a
// child's run limit — is bounded by a row of the time-limit table or
// derived from it. TestEveryWaitHasItsBound lists each one (waits, in
// waits_list_test.go) with its bound, and fails on a wait not listed.
//
// A static scan, not an interceptor of SDK test runs: it sees every wait
// in the source, also those on paths no test takes (the branches kept for
// recorded histories, failure paths), and it reads the bound as written —
// a run would only see a duration, and a minute from the table looks like
// a minute typed in.

// wait is one wait in the workflows' source: where (package and
// function), what (an activity option, timer, sleep, await, child option,
// or a step's Limit the activity and timer of a step are given) and the
// expression of its bound ("none" where it has none).
type wait struct {
	where, kind, expr string
}

// Kinds of bound a listed wait has.
const (
	// table: a row of the table, or derived from it (kernel/bounds.go,
	// the run limits of upgrade and remediation).
	byTable = "table"
	// legacy: the constant a recorded history ran with, on a branch only
	// such a history takes (kernel.TableBounds or an older change ID).
	byLegacy = "legacy"
	// ledger: a call to rackroll's own ledger, where the table is kept:
	// it cannot be bounded by what it has not read yet.
	byLedger = "ledger"
	// operator: the operator's own wait for this run (a strategy's wait
	// between racks; a pause until continue-update or cancel-update).
	byOperator = "operator"
	// pacing: how often a loop looks again, inside a bounded wait or
	// forever by design (the monitor, the ledger); not a limit.
	byPacing = "pacing"
	// self: a child that bounds itself with a limit from the table, or one
	// that is not waited on.
	bySelf = "self"
	// fleet: a fleet's calls to Temporal about its sites (their ledgers'
	// headers, their upgrades' starts and states): no one site's table
	// bounds a run over many sites, so each has a constant of its own.
	byFleet = "fleet"
)

// listed is a wait with its bound: the kind, and the words docs/time-limits.md
// lists it under.
type listed struct {
	wait
	by, doc string
}

var (
	// typedIn: a duration typed in (time.Minute, 30 * time.Second); a
	// bound from the table may floor or trim one with it, never be one.
	typedIn       = regexp.MustCompile(`\btime\.(Hour|Minute|Second|Millisecond)\b|\b\d+\b|[-+*/() ,]|\bmax\b|\bmin\b`)
	timeoutFields = []string{"ScheduleToCloseTimeout", "StartToCloseTimeout", "ScheduleToStartTimeout", "HeartbeatTimeout",
		"WorkflowRunTimeout", "WorkflowExecutionTimeout", "WorkflowTaskTimeout"}
)

func TestEveryWaitHasItsBound(t *testing.T) {
	found := scanWaits(t)
	doc, err := os.ReadFile("../docs/time-limits.md")
	if err != nil {
		t.Fatal(err)
	}
	remaining := slices.Clone(found)
	for _, l := range slices.Concat(waits, limits) {
		i := slices.Index(remaining, l.wait)
		if i < 0 {
			t.Errorf("listed wait %s %s = %s is gone: take it off the list in waits_list_test.go", l.where, l.kind, l.expr)
			continue
		}
		remaining = slices.Delete(remaining, i, i+1)
		if l.by == byTable && typedIn.ReplaceAllString(l.expr, "") == "" {
			t.Errorf("%s %s = %s: a bound from the table has no duration typed in", l.where, l.kind, l.expr)
		}
		if l.doc == "" || !bytes.Contains(doc, []byte(l.doc)) {
			t.Errorf("%s %s: docs/time-limits.md does not list it as %q", l.where, l.kind, l.doc)
		}
	}
	for _, w := range remaining {
		t.Errorf("a wait without its bound: %s %s = %s; bound it by the table (kernel/bounds.go, docs/time-limits.md) and list it:\n\t{wait{%q, %q, %q}, byTable, \"…\"},",
			w.where, w.kind, w.expr, w.where, w.kind, w.expr)
	}
	t.Logf("%d waits, each with its bound", len(found))
}

// scanWaits finds every wait the production sources of workflows/... build.
func scanWaits(t *testing.T) []wait {
	t.Helper()
	fset := token.NewFileSet()
	var out []wait
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "wftest") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			if fd, ok := decl.(*ast.FuncDecl); ok {
				out = append(out, waitsIn(fset, f.Name.Name+"."+funcName(fd), fd)...)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	typ := fd.Recv.List[0].Type
	if s, ok := typ.(*ast.StarExpr); ok {
		typ = s.X
	}
	if id, ok := typ.(*ast.Ident); ok {
		return id.Name + "." + fd.Name.Name
	}
	return fd.Name.Name
}

// waitsIn lists the waits built in fd: the timeout fields of activity and
// child options ("none" for a child without a run limit), and the
// duration of each timer, sleep and await ("none" for an Await).
func waitsIn(fset *token.FileSet, where string, fd *ast.FuncDecl) []wait {
	var out []wait
	src := func(e ast.Expr) string {
		var b bytes.Buffer
		_ = printer.Fprint(&b, fset, e)
		return b.String()
	}
	ast.Inspect(fd, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CompositeLit:
			typ := src(n.Type)
			if typ == "kernel.Limit" || typ == "Limit" {
				// A step's limit travels as a Limit to the activity and the
				// timer that keep it: one built is a bound to list too.
				for _, el := range n.Elts {
					if kv, ok := el.(*ast.KeyValueExpr); ok && src(kv.Key) == "D" {
						out = append(out, wait{where, "Limit.D", src(kv.Value)})
					}
				}
				return true
			}
			if typ != "workflow.ActivityOptions" && typ != "workflow.LocalActivityOptions" && typ != "workflow.ChildWorkflowOptions" {
				return true
			}
			bounded := false
			for _, el := range n.Elts {
				kv, ok := el.(*ast.KeyValueExpr)
				if !ok || !slices.Contains(timeoutFields, src(kv.Key)) {
					continue
				}
				out = append(out, wait{where, src(kv.Key), src(kv.Value)})
				bounded = bounded || src(kv.Key) == "WorkflowRunTimeout" || src(kv.Key) == "WorkflowExecutionTimeout"
			}
			if typ == "workflow.ChildWorkflowOptions" && !bounded {
				out = append(out, wait{where, "WorkflowRunTimeout", "none"})
			}
		case *ast.CallExpr:
			fn := src(n.Fun)
			switch fn {
			case "workflow.NewTimer", "workflow.Sleep", "workflow.AwaitWithTimeout":
				out = append(out, wait{where, fn, src(n.Args[1])})
			case "workflow.Await":
				out = append(out, wait{where, fn, "none"})
			}
		}
		return true
	})
	return out
}

func (w wait) String() string { return fmt.Sprintf("%s %s = %s", w.where, w.kind, w.expr) }
