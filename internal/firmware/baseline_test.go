package firmware

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func dellEntry() Entry {
	return Entry{
		Match: Match{Manufacturer: "Dell Inc.", Model: "PowerEdge R6*"},
		Components: []Component{
			{Name: "BIOS", Kind: "bios", Inventory: "^BIOS$", Minimum: "1.14.0", Image: "http://fw.example/BIOS_1.14.0.EXE",
				Apply: Apply{Method: MethodSimpleUpdate, ApplyTime: ApplyOnReset}},
			{Name: "iDRAC", Kind: "bmc", Inventory: "iDRAC", Minimum: "7.00.30.00", Image: "http://fw.example/iDRAC_7.00.30.00.EXE",
				Apply: Apply{Method: MethodSimpleUpdate}},
			{Name: "NIC", Kind: "nic", Inventory: "^NIC", Minimum: "22.31.6", Image: "https://fw.example/NIC_22.31.6.EXE",
				Apply: Apply{Method: MethodMultipartPush, ApplyTime: ApplyOnReset}},
		},
	}
}

func TestValidateNamesEveryProblemAtOnce(t *testing.T) {
	require.Empty(t, Baseline{dellEntry()}.Validate())
	bad := Baseline{
		{Match: Match{Model: "R[6"}},
		{Match: Match{Manufacturer: "HPE"}, Components: []Component{
			{Name: "ROM", Kind: "firmware", Inventory: "(", Minimum: "latest", Image: "ftp://fw/rom.bin", Apply: Apply{Method: "Redfish", ApplyTime: "Later"}},
			{Name: "rom", Kind: "bios", Inventory: "x", Minimum: "1.0", Image: "http://fw/rom.bin", Apply: Apply{Method: MethodSimpleUpdate}},
			{Kind: "bios", Image: "/rom.bin", Apply: Apply{Method: MethodSimpleUpdate}},
			{Name: "iLO", Kind: "bmc", Inventory: "iLO", Minimum: "3.0", Image: "http://fw/ilo.bin", Apply: Apply{Method: MethodSimpleUpdate, HostOff: true}},
		}},
	}
	got := map[string]string{}
	for _, p := range bad.Validate() {
		got[p.Field] = p.Value + " — " + p.Message
	}
	for field, want := range map[string]string{
		"[0].match.manufacturer":            "required",
		"[0].match.model":                   "R[6 — must be a glob",
		"[0].components":                    "at least one component",
		"[1].components[0].kind":            "firmware — allowed: bios, nic, storage, other, bmc",
		"[1].components[0].inventory":       "( — not a regular expression",
		"[1].components[0].minimum":         "latest — holds no version number",
		"[1].components[0].image":           "ftp://fw/rom.bin — must be an absolute http or https URL",
		"[1].components[0].apply.method":    "Redfish — allowed: SimpleUpdate, MultipartPush",
		"[1].components[0].apply.applyTime": "Later — allowed: Immediate, OnReset",
		"[1].components[1].name":            "rom — named twice",
		"[1].components[2].name":            "required",
		"[1].components[2].inventory":       "required",
		"[1].components[2].minimum":         "required",
		"[1].components[2].image":           "/rom.bin — must be an absolute",
		"[1].components[3].apply.hostOff":   "true — only for a host component (bios, nic, storage, other)",
	} {
		require.Contains(t, got, field)
		assert.True(t, strings.HasPrefix(got[field], want) || strings.Contains(got[field], want), "%s: %s", field, got[field])
	}
	assert.Len(t, got, 15)
	assert.NotEmpty(t, Baseline{}.Validate(), "an empty baseline says what to list")
}

func TestForPicksTheFirstEntryThatFits(t *testing.T) {
	anyModel := Entry{Match: Match{Manufacturer: "dell inc."}}
	b := Baseline{dellEntry(), anyModel}
	e, ok := b.For("Dell Inc.", "PowerEdge R650")
	require.True(t, ok)
	assert.Equal(t, "Dell Inc. PowerEdge R6*", e.Match.String())
	e, ok = b.For("Dell Inc.", "PowerEdge R750")
	require.True(t, ok)
	assert.Equal(t, "dell inc. (any model)", e.Match.String())
	_, ok = b.For("HPE", "ProLiant DL360 Gen10 Plus")
	assert.False(t, ok)
}

func TestJudge(t *testing.T) {
	b := Baseline{dellEntry()}
	s := Server{Manufacturer: "Dell Inc.", Model: "PowerEdge R650", Items: []Item{
		{ID: "Installed-159-1.13.2__BIOS.Setup.1-1", Name: "BIOS", Version: "1.13.2", Updateable: true},
		{ID: "Previous-159-1.12.0__BIOS.Setup.1-1", Name: "BIOS", Version: "1.12.0", Updateable: true},
		{ID: "Installed-25227-7.00.30.00__iDRAC.Embedded.1-1", Name: "Integrated Dell Remote Access Controller", Version: "7.00.30.00", Updateable: true},
		{ID: "Available-25227-7.10.30.00__iDRAC.Embedded.1-1", Name: "Integrated Dell Remote Access Controller", Version: "7.10.30.00"},
	}}
	rep := Judge(b, s)
	assert.Equal(t, "Dell Inc. PowerEdge R6*", rep.Entry)
	require.Len(t, rep.Rows, 3, "Previous- and Available- members are not what runs")
	assert.Equal(t, Below, rep.Rows[0].Status)
	assert.Equal(t, "1.13.2", rep.Rows[0].Current)
	assert.Equal(t, AtBaseline, rep.Rows[1].Status)
	assert.Contains(t, rep.Rows[1].ID, "iDRAC")
	assert.Equal(t, Unknown, rep.Rows[2].Status)
	assert.Contains(t, rep.Rows[2].Why, `no FirmwareInventory member matches "^NIC"`)
	assert.Len(t, rep.Below(), 1)
	assert.Len(t, rep.Unknown(), 1)

	// A NIC with two ports is two members: each is judged.
	s.Items = append(s.Items, Item{ID: "Installed-14-22.31.6__NIC.Integrated.1-1-1", Name: "NIC 1 port 1", Version: "22.31.6"},
		Item{ID: "Installed-14-22.0.9__NIC.Integrated.1-2-1", Name: "NIC 1 port 2", Version: "22.0.9"})
	rep = Judge(b, s)
	require.Len(t, rep.Rows, 4)
	assert.Equal(t, []Status{AtBaseline, Below}, []Status{rep.Rows[2].Status, rep.Rows[3].Status})

	none := Judge(b, Server{Manufacturer: "HPE", Model: "ProLiant DL360 Gen10 Plus"})
	assert.Empty(t, none.Rows)
	assert.Equal(t, "no baseline entry matches HPE ProLiant DL360 Gen10 Plus", none.Note)
}
