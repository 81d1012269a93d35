package model

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

const minimalYAML = `
cluster: site-a
runtimeVersion: 4.1.2
kubernetes: {kubeconfig: /k}
bmcCredentials:
  default: {usernameEnv: BMC_USERNAME, passwordEnv: BMC_PASSWORD}
racks:
  - name: rack1
    servers:
      - name: rack1-mgmt1
        role: management
        nodeName: node-1
        bmc: {address: "https://10.1.1.11", credentials: default, insecureSkipVerify: yes}
        bootMACAddress: "52:54:00:01:00:01"
        serialNumber: 101
remediation: {interval: 3s, maxConcurrentCompute: 2}
lab:
  timings: {boot: 3s, reimage: 5s}
  faults: [{bmm: rack1-mgmt1, kind: reimage-fails, rate: 0.5}]
labAdmin: http://127.0.0.1:9000
`

func TestParseInventory(t *testing.T) {
	inv, err := ParseInventory([]byte(minimalYAML))
	require.NoError(t, err)
	assert.Equal(t, "site-a", inv.Cluster)
	assert.Equal(t, "4.1.2", inv.RuntimeVersion)
	assert.Equal(t, "/k", inv.Kubernetes.Kubeconfig)
	assert.Equal(t, CredentialRef{UsernameEnv: "BMC_USERNAME", PasswordEnv: "BMC_PASSWORD"}, inv.BMCCredentials["default"])
	s := inv.Racks[0].Servers[0]
	assert.Equal(t, ServerSpec{Name: "rack1-mgmt1", Role: RoleManagement, NodeName: "node-1",
		BMC:            BMCSpec{Address: "https://10.1.1.11", Credentials: "default", InsecureSkipVerify: true},
		BootMACAddress: "52:54:00:01:00:01", SerialNumber: "101"}, s, "a numeric serial becomes text")
	assert.Equal(t, "3s", inv.Remediation.Interval.String())
	assert.Equal(t, 2, inv.Remediation.MaxConcurrentCompute)
	// The lab's fields are carried as written (internal/lab reads them).
	assert.JSONEq(t, `{"timings": {"boot": "3s", "reimage": "5s"}, "faults": [{"bmm": "rack1-mgmt1", "kind": "reimage-fails", "rate": 0.5}]}`, string(inv.Lab))
	assert.JSONEq(t, `"http://127.0.0.1:9000"`, string(inv.LabAdmin))
}

func TestInventoryRoundTrip(t *testing.T) {
	inv, err := ParseInventory([]byte(minimalYAML))
	require.NoError(t, err)
	out, err := yaml.Marshal(inv)
	require.NoError(t, err)
	back, err := ParseInventory(out)
	require.NoError(t, err, string(out))
	assert.Equal(t, inv, back)
	assert.Contains(t, string(out), "interval: 3s")
}

func TestParseInventoryShapeProblems(t *testing.T) {
	for _, tc := range []struct {
		name, yaml, field, value, msg string
	}{
		{"unknown top-level field", "cluster: a\nclusterName: b\n", "clusterName", "b", "unknown field: allowed fields are cluster, runtimeVersion, kubernetes"},
		{"unknown server field", "racks: [{name: r, servers: [{name: s, bmcAddress: x}]}]\n", "racks[0].servers[0].bmcAddress", "x", "allowed fields are name, role, nodeName, bmc, bootMACAddress, serialNumber"},
		{"case matters", "Cluster: a\n", "Cluster", "a", "unknown field"},
		{"inline password", "bmcCredentials: {default: {usernameEnv: U, password: hunter2}}\n", "bmcCredentials.default.password", "(redacted)", "inline secrets are not allowed: use passwordEnv or passwordFile"},
		{"inline username", "bmcCredentials: {default: {username: root, passwordEnv: P}}\n", "bmcCredentials.default.username", "(redacted)", "inline secrets are not allowed: use usernameEnv or usernameFile"},
		{"password on a bmc", "racks: [{name: r, servers: [{name: s, bmc: {password: hunter2}}]}]\n", "racks[0].servers[0].bmc.password", "(redacted)", "inline secrets"},
		{"secret-looking unknown field", "bmcCredentials: {default: {passwd: hunter2}}\n", "bmcCredentials.default.passwd", "(redacted)", "unknown field"},
		{"racks not a list", "racks: rack1\n", "racks", "rack1", "expected a list"},
		{"server not a mapping", "racks: [{name: r, servers: [s1]}]\n", "racks[0].servers[0]", "s1", "expected a mapping with fields name, role"},
		{"credentials not a mapping", "bmcCredentials: [a]\n", "bmcCredentials", "[...]", "expected a mapping of names to entries"},
		{"text wanted", "cluster: {a: 1}\n", "cluster", "{...}", "expected text"},
		{"whole number wanted", "remediation: {maxConcurrentCompute: 2.5}\n", "remediation.maxConcurrentCompute", "2.5", "expected a whole number"},
		{"bool wanted", "racks: [{name: r, servers: [{bmc: {insecureSkipVerify: maybe}}]}]\n", "racks[0].servers[0].bmc.insecureSkipVerify", "maybe", "expected true or false"},
		{"bad duration", "remediation: {interval: soon}\n", "remediation.interval", "soon", "want a duration such as 10m or 30s"},
		{"not YAML", "cluster: [\n", "inventory", "", "not valid YAML"},
		{"duplicate key", "cluster: a\ncluster: b\n", "inventory", "", "not valid YAML"},
		{"empty", "", "inventory", "", "empty"},
		{"not a mapping", "- a\n", "inventory", "[...]", "expected a mapping with fields cluster"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseInventory([]byte(tc.yaml))
			ps := problems(t, err)
			require.Len(t, ps, 1, err.Error())
			assert.Equal(t, tc.field, ps[0].Field)
			assert.Equal(t, tc.value, ps[0].Value)
			assert.Contains(t, ps[0].Message, tc.msg)
			assert.NotContains(t, err.Error(), "hunter2", "secrets never reach messages")
		})
	}
}

func TestParseInventoryReportsAllShapeProblems(t *testing.T) {
	_, err := ParseInventory([]byte(`
cluster: a
colour: blue
bmcCredentials: {default: {password: x}}
racks:
  - name: r
    size: 3
    servers: [{name: s, rol: compute}]
remediation: {interval: soon}
`))
	fields := []string{}
	for _, p := range problems(t, err) {
		fields = append(fields, p.Field)
	}
	assert.ElementsMatch(t, []string{"colour", "bmcCredentials.default.password", "racks[0].size",
		"racks[0].servers[0].rol", "remediation.interval"}, fields)
}

func TestLoadInventory(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	require.NoError(t, os.WriteFile(good, []byte(minimalYAML), 0o600))
	inv, err := LoadInventory(good)
	require.NoError(t, err)
	assert.Equal(t, "site-a", inv.Cluster)

	bad := filepath.Join(dir, "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("colour: blue\n"), 0o600))
	_, err = LoadInventory(bad)
	require.Error(t, err)
	assert.Contains(t, err.Error(), bad)
	assert.Len(t, problems(t, err), 1, "the ValidationError stays reachable")

	_, err = LoadInventory(filepath.Join(dir, "missing.yaml"))
	assert.ErrorIs(t, err, os.ErrNotExist)
}

// An inline secret is one problem among the others of the file: all of them
// are listed, and the secret's value in none.
func TestParseValidListsEveryProblem(t *testing.T) {
	data := strings.NewReplacer("cluster: site-a", "cluster: Site_A",
		"{usernameEnv: BMC_USERNAME, passwordEnv: BMC_PASSWORD}", "{usernameEnv: BMC_USERNAME, password: hunter2}").Replace(minimalYAML)
	_, err := ParseValid([]byte(data), (*Inventory).Validate)
	got := map[string]string{}
	for _, p := range problems(t, err) {
		got[p.Field] = p.Message
	}
	assert.Contains(t, got["bmcCredentials.default.password"], "inline secrets are not allowed")
	assert.Contains(t, got["cluster"], "lowercase letters")
	assert.NotContains(t, err.Error(), "hunter2", "secrets never reach messages")

	_, err = ParseValid([]byte("cluster: Site_A\nracks: rack1\n"), (*Inventory).Validate)
	assert.Equal(t, []Problem{{Field: "racks", Value: "rack1", Message: "expected a list"},
		{Field: "cluster", Value: "Site_A", Message: "must be lowercase letters, digits and '-' (at most 63), starting and ending with a letter or digit"},
		{Field: "runtimeVersion", Message: "required: the version the servers run now, e.g. 4.1.2"}}, problems(t, err),
		"a value of the wrong type is left out and the rest still checked; what it refused is not named twice")
	_, err = ParseValid([]byte("cluster: Site_A\ncluster: b\n"), (*Inventory).Validate)
	assert.Len(t, problems(t, err), 1, "nor does a file that is not YAML")

	inv, err := LoadValid(filepath.Join(examples, "four-rack.yaml"), (*Inventory).Validate)
	require.NoError(t, err)
	assert.Equal(t, "site-a", inv.Cluster)
}

// The lab's fields are not the model's to read: any content is carried.
func TestParseInventoryCarriesTheLabSection(t *testing.T) {
	inv, err := ParseInventory([]byte(strings.Replace(minimalYAML, "lab:\n", "lab:\n  anything: [1, two]\n", 1)))
	require.NoError(t, err)
	assert.Contains(t, string(inv.Lab), `"anything":[1,"two"]`)
}
