package growth_test

import (
	"os"
	"testing"

	"github.com/rackroll/rackroll/internal/toolbin"
)

// commands are the starter and worker the tests run as an operator does,
// built once for the package.
var commands toolbin.Commands

func TestMain(m *testing.M) {
	code := m.Run()
	commands.Remove()
	os.Exit(code)
}
