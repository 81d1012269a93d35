package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/rackroll/rackroll/internal/keyset"
	"github.com/rackroll/rackroll/internal/keyset/keysettest"
	"github.com/stretchr/testify/require"
)

// The command as the pod runs it: the report in the termination message
// on success, the reason and exit code 1 on a failure.
func TestRun(t *testing.T) {
	root, term := t.TempDir(), filepath.Join(t.TempDir(), "termination-log")
	require.NoError(t, os.MkdirAll(filepath.Join(root, "etc"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "etc/passwd"), []byte("root:x:0:0:root:/root:/bin/bash\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, "etc/group"), []byte("root:x:0:\n"), 0o644))
	want := keyset.NodeKeys{Users: []keyset.NodeUser{{Name: "alice", Keyset: "oncall", Privilege: keyset.Standard, Key: keysettest.Line(1, "a")}}}
	keys, _ := json.Marshal(want)
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == keyset.NodeKeysEnv {
				return v
			}
			return ""
		}
	}
	var log bytes.Buffer
	require.Equal(t, 0, run([]string{"apply", "--root", root, "--termination-log", term}, env(string(keys)), &log))
	var rep keyset.NodeReport
	b, err := os.ReadFile(term)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &rep))
	require.NoError(t, keyset.CheckReport(want, rep))
	require.Contains(t, log.String(), "added user alice (keyset oncall, uid 60578)")

	require.Equal(t, 1, run([]string{"apply", "--root", root, "--termination-log", term}, env(`{"users":[{"nam":"x"}]}`), &log))
	b, _ = os.ReadFile(term)
	require.Contains(t, string(b), `$RACKROLL_NODE_KEYS is not NodeKeys JSON: json: unknown field "nam"`)
	require.Equal(t, 1, run([]string{"apply", "--root", t.TempDir(), "--termination-log", term}, env(string(keys)), &log))
	b, _ = os.ReadFile(term)
	require.Contains(t, string(b), "no /etc under the root")
	require.Equal(t, 2, run([]string{"remove"}, env(""), &log))
}
