package toolbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
)

// CmdDirEnv names a directory where make test has linked rackroll's
// commands once for the whole run (worker, starter, from the same
// checkout): Build returns those instead of linking them again in every
// test package that runs them as processes.
const CmdDirEnv = "RACKROLL_CMD_DIR"

// LabTag is the build tag that links the lab's commands into the starter
// (`starter lab …`, `starter demo`; starter/lab_build.go). The production
// starter is built without it; the commands tests run are built with it,
// as `make build` builds them, since tests drive the lab through them.
const LabTag = "lab"

// Build compiles rackroll's own commands (package directories of the
// checkout, e.g. "worker", "starter") into dir with LabTag, for tests that
// must run them as separate processes, and returns their paths in order.
// Commands make test linked already (CmdDirEnv, also with LabTag) are
// returned as they are.
func Build(dir string, commands ...string) ([]string, error) {
	if pre := os.Getenv(CmdDirEnv); pre != "" {
		if paths, ok := prebuilt(pre, commands); ok {
			return paths, nil
		}
	}
	root, err := Checkout()
	if err != nil {
		return nil, err
	}
	paths := make([]string, 0, len(commands))
	for _, c := range commands {
		out := filepath.Join(dir, filepath.Base(c))
		cmd := exec.Command("go", "build", "-tags", LabTag, "-o", out, "./"+c)
		cmd.Dir = root
		if b, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("go build -tags %s ./%s: %v\n%s", LabTag, c, err, b)
		}
		paths = append(paths, out)
	}
	return paths, nil
}

// prebuilt returns the paths of commands in dir when every one is there.
func prebuilt(dir string, commands []string) ([]string, bool) {
	paths := make([]string, 0, len(commands))
	for _, c := range commands {
		p := filepath.Join(dir, filepath.Base(c))
		if fi, err := os.Stat(p); err != nil || fi.IsDir() {
			return nil, false
		}
		paths = append(paths, p)
	}
	return paths, true
}

// Commands builds rackroll's commands once per test process, for the
// tests of a package that run them as processes; Remove deletes them.
type Commands struct {
	mu    sync.Mutex
	dir   string
	built map[string]string // command -> path
}

// Paths returns the paths of the named commands, in that order, building
// each the first time it is asked for (Build).
func (c *Commands) Paths(commands ...string) ([]string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dir == "" {
		dir, err := os.MkdirTemp("", "rackroll-cmds-")
		if err != nil {
			return nil, err
		}
		c.dir, c.built = dir, map[string]string{}
	}
	var missing []string
	for _, name := range commands {
		if _, ok := c.built[name]; !ok && !slices.Contains(missing, name) {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		paths, err := Build(c.dir, missing...)
		if err != nil {
			return nil, err
		}
		for i, name := range missing {
			c.built[name] = paths[i]
		}
	}
	out := make([]string, len(commands))
	for i, name := range commands {
		out[i] = c.built[name]
	}
	return out, nil
}

// Remove deletes what Paths built (call it from TestMain after m.Run).
func (c *Commands) Remove() {
	if c.dir != "" {
		os.RemoveAll(c.dir)
	}
}
