package lab

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/rackroll/rackroll/internal/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

// The lab's section and the tests of its checks moved here from
// internal/model (parse_test, validate_test, examples_test).

func problems(t *testing.T, err error) []model.Problem {
	t.Helper()
	var ve *model.ValidationError
	require.True(t, errors.As(err, &ve), "want a *ValidationError, got %v", err)
	return ve.Problems
}

// put stores s in inv's lab fields, as a file holding it would.
func put(t *testing.T, inv *model.Inventory, s Section) {
	t.Helper()
	var err error
	inv.Lab, inv.LabAdmin = nil, nil
	if s.Lab != nil {
		inv.Lab, err = json.Marshal(s.Lab)
		require.NoError(t, err)
	}
	if s.Admin != "" {
		inv.LabAdmin, err = json.Marshal(s.Admin)
		require.NoError(t, err)
	}
}

func TestSectionOf(t *testing.T) {
	inv, err := model.ParseInventory([]byte(`
cluster: site-a
lab:
  timings: {boot: 3s, reimage: 5s}
  faults: [{bmm: rack1-mgmt1, kind: reimage-fails, rate: 0.5}, {bmm: 101, kind: bmc-5xx}]
labAdmin: http://127.0.0.1:9000
`))
	require.NoError(t, err)
	s, err := SectionOf(inv)
	require.NoError(t, err)
	assert.Equal(t, []Fault{{BMM: "rack1-mgmt1", Kind: "reimage-fails", Rate: 0.5}, {BMM: "101", Kind: "bmc-5xx"}}, s.Lab.Faults,
		"a numeric name becomes text")
	assert.Equal(t, "5s", s.Lab.Timings.Reimage.String())
	assert.Equal(t, "http://127.0.0.1:9000", s.Admin)

	none, err := SectionOf(&model.Inventory{})
	require.NoError(t, err)
	assert.Equal(t, Section{}, none)
}

// Each problem of the lab's fields in a file, as `cluster validate` and
// `lab up` report it: the shape first (strict decoding), then the meaning.
func TestSectionProblems(t *testing.T) {
	site, err := yaml.Marshal(SyntheticInventory("site-a", 3, 2, 2))
	require.NoError(t, err)
	for _, tc := range []struct {
		name, yaml, field, value, msg string
	}{
		{"number wanted", "lab: {faults: [{bmm: a, kind: b, rate: high}]}\n", "lab.faults[0].rate", "high", "expected a number"},
		{"bare number duration", "lab: {timings: {boot: 3}}\n", "lab.timings.boot", "3", "want a duration"},
		{"unknown lab field", "lab: {fault: []}\n", "lab.fault", "[...]", "unknown field: allowed fields are timings, faults, bmcProfile, bmcProfiles"},
		{"admin not text", "labAdmin: {url: x}\n", "labAdmin", "{...}", "expected text"},
		{"password in the lab section", "lab: {password: hunter2}\n", "lab.password", "(redacted)", "inline secrets"},
		{"lab timing negative", "lab: {timings: {drain: -3s}}\n", "lab.timings.drain", "-3s", "positive duration"},
		{"lab fault unknown bmm", "lab: {faults: [{bmm: rack9-c1, kind: bmc-5xx}]}\n", "lab.faults[0].bmm", "rack9-c1", "unknown BMM"},
		{"lab fault unknown kind", "lab: {faults: [{bmm: rack1-c1, kind: melts}]}\n", "lab.faults[0].kind", "melts", "allowed values are reimage-fails, reimage-hangs"},
		{"lab fault rate above 1", "lab: {faults: [{bmm: rack1-c1, kind: bmc-5xx, rate: 1.5}]}\n", "lab.faults[0].rate", "1.5", "between 0 and 1"},
		{"lab fault rate negative", "lab: {faults: [{bmm: rack1-c1, kind: bmc-5xx, rate: -0.1}]}\n", "lab.faults[0].rate", "-0.1", "between 0 and 1"},
		{"lab admin not a URL", "labAdmin: localhost:9000\n", "labAdmin", "localhost:9000", "http(s) URL"},
		{"unknown node agent", "lab: {nodeAgent: relabels}\n", "lab.nodeAgent", "relabels", `allowed values are "relabel"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := model.ParseValid(append(site[:len(site):len(site)], tc.yaml...), Validate)
			ps := problems(t, err)
			require.Len(t, ps, 1, err.Error())
			assert.Contains(t, ps[0].Message, tc.msg)
			ps[0].Message = ""
			assert.Equal(t, model.Problem{Field: tc.field, Value: tc.value}, ps[0])
			assert.NotContains(t, err.Error(), "hunter2", "secrets never reach messages")
		})
	}
}

func TestValidateGood(t *testing.T) {
	inv := SyntheticInventory("site-a", 3, 2, 2)
	put(t, inv, Section{Lab: &Spec{Timings: FastTimings(), Faults: []Fault{{BMM: "rack1-c1", Kind: "stale-etag", Rate: 0.25}}},
		Admin: "http://127.0.0.1:7400"})
	assert.NoError(t, Validate(inv), "stale-etag is a fault kind like the others")
}

// Stock kubelets unless the site declares the relabelling agent.
func TestNodeAgentIsTheSitesOption(t *testing.T) {
	var none *Spec
	assert.False(t, none.Relabels(), "no lab section: stock kubelets")
	assert.False(t, (&Spec{}).Relabels(), "no agent declared: stock kubelets")
	inv, err := model.ParseInventory([]byte("cluster: site-a\nlab: {nodeAgent: relabel}\n"))
	require.NoError(t, err)
	s, err := SectionOf(inv)
	require.NoError(t, err)
	assert.True(t, s.Lab.Relabels())
}

func TestValidateReportsAllAtOnce(t *testing.T) {
	inv := SyntheticInventory("site-a", 3, 2, 2)
	inv.Cluster = ""
	inv.RuntimeVersion = "x"
	inv.Racks[0].Servers[0].BMC.Address = ""
	inv.Racks[1].Servers[1].BootMACAddress = "nope"
	inv.Racks[2].Servers[2].Role = "boss"
	put(t, inv, Section{Lab: &Spec{Faults: []Fault{{BMM: "ghost", Kind: "bmc-5xx"}}}})
	err := Validate(inv)
	ps := problems(t, err)
	var fields []string
	for _, p := range ps {
		fields = append(fields, p.Field)
	}
	assert.Equal(t, []string{"cluster", "runtimeVersion", "racks[0].servers[0].bmc.address",
		"racks[1].servers[1].bootMACAddress", "racks[2].servers[2].role", "lab.faults[0].bmm"}, fields)
	assert.Len(t, strings.Split(err.Error(), "\n"), 6, "one problem per line")
}

func TestBrokenExampleListsEveryProblem(t *testing.T) {
	inv, err := model.LoadInventory("../../examples/broken.yaml")
	require.NoError(t, err, "broken.yaml parses; its problems are in the meaning")
	err = Validate(inv)
	require.Error(t, err)
	got := map[string]string{}
	for _, p := range problems(t, err) {
		got[p.Field] += p.Message + "; "
	}
	for field, msg := range map[string]string{
		"cluster":                             "lowercase letters",
		"runtimeVersion":                      "major.minor.patch",
		"kubernetes":                          "not both",
		"bmcCredentials.vendor":               "no credential source",
		"racks[0].servers[0].role":            "unknown role",
		"racks[0].servers[1].bmc.address":     "required: the BMC's Redfish URL",
		"racks[0].servers[1].serialNumber":    "duplicate serialNumber",
		"racks[0].servers[2].name":            "duplicate server name",
		"racks[0].servers[2].bmc.address":     "http(s) URL",
		"racks[0].servers[2].bmc.credentials": "unknown credentials",
		"racks[0].servers[2].bootMACAddress":  "not a MAC address",
		"racks[1].name":                       "duplicate rack name",
		"racks[1].servers[0].bootMACAddress":  "duplicate bootMACAddress",
		"racks":                               "needs at least 2 management servers",
		"remediation.rebootTimeout":           "positive duration",
		"lab.faults[0].bmm":                   "unknown BMM",
		"lab.faults[0].kind":                  "unknown fault kind",
		"lab.faults[0].rate":                  "between 0 and 1",
	} {
		assert.Contains(t, got[field], msg, field)
	}
	assert.Len(t, got, 18, err.Error())
}

func TestFirmwareSection(t *testing.T) {
	inv := SyntheticInventory("site-a", 3, 2, 2)
	spec := &Spec{Firmware: map[string]map[string]string{
		"rack1": {"bios": "1.10.0", "bmc": "6.10.00.00"}, "rack1-c1": {"bios": "1.13.2"},
	}}
	put(t, inv, Section{Lab: spec})
	require.NoError(t, Validate(inv))
	assert.Equal(t, map[string]string{"bios": "1.13.2", "bmc": "6.10.00.00"}, spec.FirmwareOf("rack1", "rack1-c1"), "the server's entry over its rack's")
	assert.Empty(t, spec.FirmwareOf("rack2", "rack2-c1"))

	put(t, inv, Section{Lab: &Spec{Firmware: map[string]map[string]string{"rack9": {"bios": "1"}, "rack1": {"cpld": "1", "nic": " "}}}})
	var fields []string
	for _, p := range problems(t, Validate(inv)) {
		fields = append(fields, p.Field+"="+p.Value)
	}
	assert.Equal(t, []string{"lab.firmware.rack9=rack9", "lab.firmware.rack1.cpld=cpld", "lab.firmware.rack1.nic="}, fields)
}
