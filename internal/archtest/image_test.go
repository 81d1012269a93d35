package archtest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const productRule = "docs/design.md#the-lab-is-not-the-product"

// TestProductionImageLinksNoLab reads the Dockerfile as docker would build
// it: every Go binary its default target (the last stage: the image
// deploy/ runs) ships is listed with `go list -deps` under the build's own
// flags, and none may link the lab, its checker or the test harness. The lab target's
// starter must link the lab, or `starter lab up` would not be in it (and
// this test could not tell a lab when it saw one).
func TestProductionImageLinksNoLab(t *testing.T) {
	root, module := rootModule(t)
	b, err := os.ReadFile(filepath.Join(root, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range imageProblems(t, root, module, string(b)) {
		t.Error(p)
	}
}

// A Dockerfile whose default target ships a starter built with the lab,
// and whose lab target ships one without, fails both ways.
func TestImageProblemsCatchesALabInProduction(t *testing.T) {
	root, module := rootModule(t)
	problems := imageProblems(t, root, module, `FROM golang AS build
RUN go build -o /out/worker ./worker && \
    go build -tags=lab -o /out/starter ./starter && go build -o /out/plain/starter ./starter
FROM scratch AS lab
COPY --from=build /out/plain/starter /usr/local/bin/
FROM scratch AS worker
COPY --from=build /out/worker /out/starter /usr/local/bin/
`)
	got := strings.Join(problems, "\n")
	if len(problems) != 2 {
		t.Fatalf("want two problems (the default target's starter, the lab target's), got:\n%s", got)
	}
	prod, labTarget := problems[0], problems[1]
	for _, want := range []string{"ships /out/starter (go build -tags lab ./starter), which links internal/invariants, internal/lab, internal/lab/"} {
		if !strings.Contains(prod, want) {
			t.Errorf("missed %q; reported:\n%s", want, prod)
		}
	}
	if want := "the lab target's starter (go build ./starter) does not link internal/lab"; !strings.Contains(labTarget, want) {
		t.Errorf("missed %q; reported:\n%s", want, labTarget)
	}
}

func rootModule(t *testing.T) (root, module string) {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return root, modulePath(t, filepath.Join(root, "go.mod"))
}

// imageProblems checks a Dockerfile: its default target ships ./worker and
// ./starter, none of its Go binaries links the lab, and the lab target's
// starter does.
func imageProblems(t *testing.T, root, module, dockerfile string) []string {
	t.Helper()
	stages := parseDockerfile(dockerfile)
	if len(stages) == 0 {
		return []string{"the Dockerfile has no FROM"}
	}
	var out []string
	def := stages[len(stages)-1]
	prod := shipped(stages, def.name)
	for _, want := range []string{"./worker", "./starter"} {
		if !slices.ContainsFunc(prod, func(g goBuild) bool { return g.pkg == want }) {
			out = append(out, fmt.Sprintf("the default target (stage %s) ships no go build of %s; found %+v", def.name, want, prod))
		}
	}
	for _, g := range prod {
		var linked []string
		for _, d := range deps(t, root, g) {
			if isLab(module, d) {
				linked = append(linked, relative(module, d))
			}
		}
		if len(linked) > 0 {
			slices.Sort(linked)
			out = append(out, fmt.Sprintf("the default target (stage %s) ships %s (%s), which links %s: production never links the lab; "+
				"build the lab's starter in its own stage with -tags %s (%s)", def.name, g.out, g, strings.Join(linked, ", "), labTag, productRule))
		}
	}
	i := slices.IndexFunc(shipped(stages, "lab"), func(g goBuild) bool { return g.pkg == "./starter" })
	if i < 0 {
		return append(out, "the lab target ships no go build of ./starter")
	}
	if g := shipped(stages, "lab")[i]; !slices.Contains(deps(t, root, g), module+"/internal/lab") {
		out = append(out, fmt.Sprintf("the lab target's starter (%s) does not link internal/lab: build it with -tags %s (%s)", g, labTag, productRule))
	}
	return out
}

// isLab: pkg is the lab, its checker or the test harness (layers lab,
// labcheck, harness): nothing a site needs.
func isLab(module, pkg string) bool {
	if pkg != module && !strings.HasPrefix(pkg, module+"/") {
		return false
	}
	l := layer(relative(module, pkg))
	return l == lab || l == labcheck || l == harness
}

// deps lists the packages g links, as go build would with its tags.
func deps(t *testing.T, root string, g goBuild) []string {
	t.Helper()
	cmd := exec.Command("go", append(append([]string{"list", "-deps"}, g.flags()...), g.pkg)...)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
			stderr = ee.Stderr
		}
		t.Fatalf("go list -deps of %s: %v\n%s", g, err, stderr)
	}
	return strings.Fields(string(out))
}

// stage is one FROM of a Dockerfile and its instructions, continuation
// lines joined and comments dropped.
type stage struct {
	name, base string
	lines      []string
}

// goBuild is one `go build` of this module's package pkg into out.
type goBuild struct {
	out, pkg, tags string
}

// flags are the build's flags that change what it links.
func (g goBuild) flags() []string {
	if g.tags == "" {
		return nil
	}
	return []string{"-tags", g.tags}
}

func (g goBuild) String() string {
	return strings.Join(append(append([]string{"go build"}, g.flags()...), g.pkg), " ")
}

func parseDockerfile(text string) []stage {
	var stages []stage
	var cur strings.Builder
	flush := func() {
		line := strings.TrimSpace(cur.String())
		cur.Reset()
		f := strings.Fields(line)
		switch {
		case len(f) == 0:
		case strings.EqualFold(f[0], "FROM"):
			s := stage{base: f[len(f)-1], name: f[len(f)-1]}
			if len(f) >= 4 && strings.EqualFold(f[2], "AS") {
				s.base, s.name = f[1], f[3]
			}
			stages = append(stages, s)
		case len(stages) > 0:
			stages[len(stages)-1].lines = append(stages[len(stages)-1].lines, line)
		}
	}
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "#") {
			continue
		}
		if s, ok := strings.CutSuffix(strings.TrimRight(l, " \t"), `\`); ok {
			cur.WriteString(s + " ")
			continue
		}
		cur.WriteString(l)
		flush()
	}
	flush()
	return stages
}

// shipped is every go build of this module whose output the stage named
// target copies from another stage.
func shipped(stages []stage, target string) []goBuild {
	var out []goBuild
	for _, s := range stages {
		if s.name != target {
			continue
		}
		for _, l := range s.lines {
			f := strings.Fields(l)
			if len(f) < 3 || !strings.EqualFold(f[0], "COPY") {
				continue
			}
			from, args := "", []string{}
			for _, a := range f[1:] {
				if v, ok := strings.CutPrefix(a, "--from="); ok {
					from = v
				} else if !strings.HasPrefix(a, "--") {
					args = append(args, a)
				}
			}
			for _, src := range args[:len(args)-1] {
				out = append(out, builtIn(stages, from, src)...)
			}
		}
	}
	return out
}

// builtIn: the go builds of stage name (or the stages it is built FROM)
// whose output is src or lies under it.
func builtIn(stages []stage, name, src string) []goBuild {
	var out []goBuild
	for i := len(stages) - 1; i >= 0 && name != ""; i-- {
		s := stages[i]
		if s.name != name {
			continue
		}
		for _, l := range s.lines {
			if f := strings.Fields(l); len(f) > 0 && strings.EqualFold(f[0], "RUN") {
				for _, g := range goBuilds(strings.Join(f[1:], " ")) {
					if g.out == src || strings.HasPrefix(g.out, strings.TrimSuffix(src, "/")+"/") {
						out = append(out, g)
					}
				}
			}
		}
		name = s.base
	}
	return out
}

// goBuilds parses the `go build` commands of a shell line joined by &&:
// -o, -tags (as -tags X or -tags=X), and a package of this module
// ("./…"); builds of other modules (the k8s tools) are left out.
func goBuilds(sh string) []goBuild {
	var out []goBuild
	for _, c := range strings.Split(sh, "&&") {
		f := strings.Fields(c)
		i := slices.Index(f, "go")
		if i < 0 || i+1 >= len(f) || f[i+1] != "build" {
			continue
		}
		var g goBuild
		for j := i + 2; j < len(f); j++ {
			switch a := f[j]; {
			case a == "-o" && j+1 < len(f):
				g.out, j = f[j+1], j+1
			case a == "-tags" && j+1 < len(f):
				g.tags, j = f[j+1], j+1
			case strings.HasPrefix(a, "-tags="):
				g.tags = strings.TrimPrefix(a, "-tags=")
			case strings.HasPrefix(a, "./"):
				g.pkg = a
			}
		}
		if g.pkg != "" && g.out != "" {
			out = append(out, g)
		}
	}
	return out
}
