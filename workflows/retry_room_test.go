package workflows

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// A worker can die mid-activity (TestCrashDuringUpgrade kills five). An
// activity whose attempts are bounded together (ScheduleToClose) must
// notice an attempt lost with its worker before that bound runs out — by
// a heartbeat timeout, or an attempt bound (StartToClose) other than the
// whole — or the step fails where it should have resumed on the next
// worker. Without either, Temporal gives the attempt the whole bound. The
// eject and the version-source preflight each once waited out their whole
// limit after a kill.
func TestALostAttemptIsRetriedWithinItsLimit(t *testing.T) {
	fset := token.NewFileSet()
	checked := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.CompositeLit)
			if !ok || exprSource(fset, lit.Type) != "workflow.ActivityOptions" {
				return true
			}
			fields := map[string]string{}
			for _, el := range lit.Elts {
				if kv, ok := el.(*ast.KeyValueExpr); ok {
					fields[exprSource(fset, kv.Key)] = exprSource(fset, kv.Value)
				}
			}
			whole, bounded := fields["ScheduleToCloseTimeout"]
			if !bounded {
				return true
			}
			checked++
			if _, beats := fields["HeartbeatTimeout"]; beats {
				return true
			}
			if attempt, ok := fields["StartToCloseTimeout"]; !ok || attempt == whole {
				t.Errorf("%s: ScheduleToClose %s with no heartbeat and no shorter attempt: a worker lost mid-attempt is noticed only when the whole bound has run out",
					fset.Position(lit.Pos()), whole)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 4 {
		t.Fatalf("found %d activity options bounded as a whole; the scan no longer sees them", checked)
	}
}

func exprSource(fset *token.FileSet, e ast.Expr) string {
	var b bytes.Buffer
	_ = printer.Fprint(&b, fset, e)
	return b.String()
}
