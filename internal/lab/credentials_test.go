package lab

import (
	"os"
	"strings"
	"testing"

	"github.com/rackroll/rackroll/internal/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The examples reference BMC_USERNAME and BMC_PASSWORD; whatever the
// caller's shell holds there, the lab makes up its own credentials and the
// out-inventory points at the files holding them.
func TestCredentialsIgnoreTheCallersEnvironment(t *testing.T) {
	t.Setenv("BMC_USERNAME", "junk-user")
	t.Setenv("BMC_PASSWORD", "junk-password")
	inv, err := model.LoadInventory("../../examples/four-rack.yaml")
	require.NoError(t, err)
	creds, err := makeCredentials(inv, t.TempDir())
	require.NoError(t, err)
	c := creds["default"]
	assert.NotEqual(t, "junk-user", c.username)
	assert.NotEqual(t, "junk-password", c.password)
	for file, want := range map[string]string{c.userFile: c.username, c.file: c.password} {
		b, err := os.ReadFile(file)
		require.NoError(t, err)
		assert.Equal(t, want, strings.TrimSpace(string(b)))
	}
}
