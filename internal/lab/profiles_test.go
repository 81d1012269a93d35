package lab

import (
	"testing"

	"github.com/rackroll/rackroll/internal/lab/redfish"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

func TestBMCProfileProblemsAllAtOnce(t *testing.T) {
	site, err := yaml.Marshal(SyntheticInventory("site-a", 2, 2, 1))
	require.NoError(t, err)
	doc := append(site, []byte("lab:\n  bmcProfile: idrac8\n  bmcProfiles: {rack9: ilo5, rack1: ilo3, rack2-c1: xcc, ghost: nope}\n")...)
	_, err = model.ParseValid(doc, Validate)
	got := map[model.Problem]string{}
	for _, p := range problems(t, err) {
		msg := p.Message
		p.Message = ""
		got[p] = msg
	}
	allowed := "allowed profiles are bootmode-absent, bootmode-legacy, dmtf, helpful, idrac10, idrac9, idrac9-lagging, idrac9-slow, ilo4, ilo5, noauth, noinventory, nomedia, " +
		"shape-filename, shape-hostcase, shape-imagename, shape-late, shape-noport, shape-percent, shape-redirect, supermicro, supermicro-x12, sushy, " +
		"targets-required, tasks-204, xcc"
	for p, msg := range map[model.Problem]string{
		{Field: "lab.bmcProfile", Value: "idrac8"}:       allowed,
		{Field: "lab.bmcProfiles.rack1", Value: "ilo3"}:  allowed,
		{Field: "lab.bmcProfiles.rack9", Value: "rack9"}: "unknown rack or BMM",
		{Field: "lab.bmcProfiles.ghost", Value: "ghost"}: "unknown rack or BMM",
		{Field: "lab.bmcProfiles.ghost", Value: "nope"}:  allowed,
	} {
		assert.Contains(t, got[p], msg, "%+v", p)
	}
	assert.Len(t, got, 5, err.Error())
}

func TestProfileOf(t *testing.T) {
	spec := &Spec{BMCProfile: "dmtf", BMCProfiles: map[string]string{"rack1": "ilo5", "rack1-c1": "supermicro"}}
	for _, tc := range []struct {
		spec        *Spec
		rack, name  string
		wantProfile string
	}{
		{nil, "rack1", "rack1-c1", redfish.DefaultProfile},
		{&Spec{}, "rack1", "rack1-c1", "idrac9"},
		{spec, "rack1", "rack1-c1", "supermicro"},
		{spec, "rack1", "rack1-c2", "ilo5"},
		{spec, "rack2", "rack2-c1", "dmtf"},
	} {
		assert.Equal(t, tc.wantProfile, tc.spec.ProfileOf(tc.rack, tc.name), "%s/%s", tc.rack, tc.name)
	}
	assert.Equal(t, "idrac9", redfish.DefaultProfile, "the default is a realistic iDRAC9, never helpful")
}

func TestGoodProfilesValidate(t *testing.T) {
	inv := SyntheticInventory("site-a", 2, 2, 1)
	put(t, inv, Section{Lab: &Spec{BMCProfile: "helpful", BMCProfiles: map[string]string{"rack1": "xcc", "rack2-c1": "idrac10"}}})
	assert.NoError(t, Validate(inv))
}
