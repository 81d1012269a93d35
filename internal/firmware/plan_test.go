package firmware

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func dellServer(bios, idrac, nic string) Server {
	return Server{Manufacturer: "Dell Inc.", Model: "PowerEdge R650", Items: []Item{
		{ID: "Installed-159-" + bios + "__BIOS.Setup.1-1", Name: "BIOS", Version: bios},
		{ID: "Previous-159-1.0.0__BIOS.Setup.1-1", Name: "BIOS", Version: "1.0.0"},
		{ID: "Installed-25227-" + idrac, Name: "Integrated Dell Remote Access Controller", Version: idrac},
		{ID: "Installed-NIC.Integrated.1-1", Name: "NIC 1", Version: nic},
		{ID: "Installed-NIC.Integrated.1-2", Name: "NIC 2", Version: "22.31.6"},
	}}
}

// The components below are applied host firmware first and the BMC last,
// whatever order the baseline declares them in.
func TestPlanOrdersBelowComponentsBMCLast(t *testing.T) {
	e := dellEntry() // BIOS, iDRAC, NIC as declared
	e.Components[1].Inventory = "Remote Access Controller"
	p := PlanFor(Baseline{e}, dellServer("1.13.0", "6.10.00.00", "22.0.1"))
	assert.Equal(t, "Dell Inc. PowerEdge R6*", p.Entry)
	assert.Equal(t, []string{"BIOS", "NIC", "iDRAC"}, p.Names())
	require.Len(t, p.Below, 3, "only the NIC port below is listed, not the one at baseline")
	assert.Equal(t, "Installed-NIC.Integrated.1-1", p.Below[1].ID)
	assert.Empty(t, p.Unknown)
	assert.False(t, p.AtBaseline())

	at := PlanFor(Baseline{e}, dellServer("1.14.0", "7.00.30.00", "22.31.6"))
	assert.True(t, at.AtBaseline())
	assert.Empty(t, at.Names())
}

// A component no member matches is unknown and never applied; a server
// no entry covers has nothing to apply and says why.
func TestPlanUnknownAndUncovered(t *testing.T) {
	e := dellEntry() // its iDRAC pattern "iDRAC" matches no member here
	p := PlanFor(Baseline{e}, dellServer("1.13.0", "7.00.30.00", "22.31.6"))
	assert.Equal(t, []string{"BIOS"}, p.Names())
	require.Len(t, p.Unknown, 1)
	assert.Equal(t, "iDRAC", p.Unknown[0].Component)
	assert.Contains(t, p.Unknown[0].Why, `no FirmwareInventory member matches "iDRAC"`)

	none := PlanFor(Baseline{e}, Server{Manufacturer: "Supermicro", Model: "SYS-510T-MR"})
	assert.True(t, none.AtBaseline())
	assert.Equal(t, "no baseline entry matches Supermicro SYS-510T-MR", none.Note)
}

func TestOrderIsStableWithinAKindAndLeavesItsInput(t *testing.T) {
	in := []Component{{Name: "BMC", Kind: KindBMC}, {Name: "ctl", Kind: "storage"}, {Name: "NIC 2", Kind: "nic"},
		{Name: "BIOS", Kind: "bios"}, {Name: "NIC 1", Kind: "nic"}, {Name: "CPLD", Kind: "other"}}
	var got []string
	for _, c := range Order(in) {
		got = append(got, c.Name)
	}
	assert.Equal(t, []string{"BIOS", "NIC 2", "NIC 1", "ctl", "CPLD", "BMC"}, got)
	assert.Equal(t, "BMC", in[0].Name, "the input keeps its order")
}

// A Replace is refused below baseline naming server, component, current
// and required; --apply-firmware lets it go ahead; an unknown component
// refuses it either way.
func TestCheckReplace(t *testing.T) {
	e := dellEntry()
	e.Components[1].Inventory = "Remote Access Controller"
	below := PlanFor(Baseline{e}, dellServer("1.13.0", "7.00.30.00", "22.31.6"))
	err := CheckReplace("rack1-c1", "4.1.2", below, false)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "bmm rack1-c1's firmware is not at the baseline of runtime 4.1.2 (Dell Inc. PowerEdge R6*)")
	assert.Contains(t, err.Error(), "below: BIOS (Installed-159-1.13.0__BIOS.Setup.1-1) 1.13.0, requires 1.14.0")
	assert.Contains(t, err.Error(), "--apply-firmware")
	assert.NoError(t, CheckReplace("rack1-c1", "4.1.2", below, true))

	at := PlanFor(Baseline{e}, dellServer("1.14.0", "7.00.30.00", "22.31.6"))
	assert.NoError(t, CheckReplace("rack1-c1", "4.1.2", at, false))

	unknown := PlanFor(Baseline{dellEntry()}, dellServer("1.14.0", "7.00.30.00", "22.31.6"))
	for _, apply := range []bool{false, true} {
		err := CheckReplace("rack1-c1", "4.1.2", unknown, apply)
		require.Error(t, err)
		assert.Contains(t, err.Error(), `unknown: iDRAC ?, requires 7.00.30.00 — cannot be judged: no FirmwareInventory member matches "iDRAC"`)
		assert.Contains(t, err.Error(), "starter bmm firmware")
	}
}

// A refusal says how to proceed where it is read: `bmm replace` names its
// own flags; the troubleshoot runbook names the commands that proceed from
// where it stopped: itself again with --apply-firmware, its replace alone,
// or itself forced.
func TestRefusalSaysHowToProceed(t *testing.T) {
	const again, replace, forced = "starter bmm troubleshoot --apply-firmware", "starter bmm replace --safeguard-mode None --apply-firmware", "starter bmm troubleshoot --force --reason TEXT"
	e := dellEntry()
	e.Components[1].Inventory = "Remote Access Controller"
	var below *Refusal
	require.ErrorAs(t, CheckReplace("rack1-c1", "4.1.2", PlanFor(Baseline{e}, dellServer("1.13.0", "7.00.30.00", "22.31.6")), false), &below)
	assert.True(t, below.Applicable)
	assert.Equal(t, "rack1-c1", below.Server)
	assert.Contains(t, below.Error(), "replace again with --apply-firmware (every other flag kept)")
	run := below.InRunbook(again, replace, forced)
	assert.Contains(t, run, below.Finding)
	assert.Contains(t, run, "run the runbook again with --apply-firmware: `"+again+"`")
	assert.Contains(t, run, "the replace alone: `"+replace+"`")
	assert.Contains(t, run, "run the runbook again forced: `"+forced+"`")

	var unknown *Refusal
	require.ErrorAs(t, CheckReplace("rack1-c1", "4.1.2", PlanFor(Baseline{dellEntry()}, dellServer("1.14.0", "7.00.30.00", "22.31.6")), true), &unknown)
	assert.False(t, unknown.Applicable, "--apply-firmware cannot prove an unknown component")
	assert.NotContains(t, unknown.InRunbook(again, replace, forced), "--apply-firmware")
	assert.Contains(t, unknown.InRunbook(again, replace, forced), "starter bmm firmware")

	unread := &Refusal{Server: "rack1-c1", Unread: true, Finding: "bmm rack1-c1's firmware could not be read"}
	assert.Equal(t, "bmm rack1-c1's firmware could not be read; replace with --force --reason TEXT to skip the check", unread.Error())
	assert.Equal(t, "bmm rack1-c1's firmware could not be read; skip the check: run the runbook again forced: `"+forced+"`", unread.InRunbook(again, replace, forced))
}
