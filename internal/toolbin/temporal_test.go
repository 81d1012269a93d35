package toolbin

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The names the code runs are the names the Makefile builds.
func TestTemporalNamesMatchTheMakefile(t *testing.T) {
	root, err := Checkout()
	if err != nil {
		t.Fatal(err)
	}
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	pin := func(name string) string {
		m := regexp.MustCompile(`(?m)^` + name + ` := (v\S+)$`).FindSubmatch(mk)
		if m == nil {
			t.Fatalf("Makefile: no %s := vX.Y.Z line", name)
		}
		return string(m[1])
	}
	server, ui := pin("TEMPORAL_SERVER_VERSION"), pin("TEMPORAL_UI_VERSION")
	for got, want := range map[string]string{
		TemporalServer:    "temporal-server-" + server,
		TemporalDevServer: "temporal-devserver-" + server,
		TemporalSQLTool:   "temporal-sql-tool-" + server,
		TemporalUI:        "temporal-ui-server-" + ui,
	} {
		if got != want {
			t.Errorf("toolbin name %q, the Makefile builds %q", got, want)
		}
	}
	// hack/temporaldev builds the dev server from the same server module.
	mod, err := os.ReadFile(filepath.Join(root, "hack", "temporaldev", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "\nrequire go.temporal.io/server " + server + "\n"; !strings.Contains(string(mod), want) {
		t.Errorf("hack/temporaldev/go.mod does not require go.temporal.io/server %s (the Makefile's TEMPORAL_SERVER_VERSION)", server)
	}
}
