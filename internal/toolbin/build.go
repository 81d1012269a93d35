package toolbin

import (
	"fmt"
	"os/exec"
	"path/filepath"
)

// Build compiles rackroll's own commands (package directories of the
// checkout, e.g. "worker", "starter") into dir, for tests that must run
// them as separate processes, and returns their paths in order.
func Build(dir string, commands ...string) ([]string, error) {
	root, err := Checkout()
	if err != nil {
		return nil, err
	}
	paths := make([]string, 0, len(commands))
	for _, c := range commands {
		out := filepath.Join(dir, filepath.Base(c))
		cmd := exec.Command("go", "build", "-o", out, "./"+c)
		cmd.Dir = root
		if b, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("go build ./%s: %v\n%s", c, err, b)
		}
		paths = append(paths, out)
	}
	return paths, nil
}
