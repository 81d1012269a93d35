package firmware

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sushy is a BMC with no FirmwareInventory: its versions are in the
// System, the Manager and, here, two network adapters.
func sushy(bios, bmc string) Server {
	return Server{Manufacturer: "Contoso", Model: "3500", NoInventory: true, InventoryWhy: "UpdateService/FirmwareInventory: HTTP 404",
		Properties: []Property{
			{Kind: KindBIOS, Source: "System.BiosVersion", ID: "437XR1138R2", Name: "System", Version: bios},
			{Kind: KindBMC, Source: "Manager.FirmwareVersion", ID: "BMC", Name: "Manager", Version: bmc},
			{Kind: KindNIC, Source: "NetworkAdapters/NIC.Slot.1.Controllers[0].FirmwarePackageVersion", ID: "NIC.Slot.1", Name: "Broadcom 57414", Version: "22.0.1"},
			{Kind: KindNIC, Source: "NetworkAdapters/NIC.Slot.2.Controllers[0].FirmwarePackageVersion", ID: "NIC.Slot.2", Name: "Intel E810", Version: "4.20"},
		}}
}

func comp(name, kind, inventory, minimum, source string) Component {
	return Component{Name: name, Kind: kind, Inventory: inventory, Minimum: minimum, Source: source,
		Image: "http://fw.example/" + kind + ".bin", Apply: Apply{Method: MethodSimpleUpdate}}
}

// Where each component's version is read: the inventory where the BMC
// has one, else the standard property of its kind; the baseline's source
// wins either way.
func TestSourceFor(t *testing.T) {
	withInventory := dellServer("1.13.0", "7.00.30.00", "22.31.6")
	for _, c := range []struct {
		source string
		s      Server
		want   string
	}{
		{"", withInventory, SourceInventory},
		{"", sushy("1.0.0", "1.00"), SourceProperty},
		{SourceProperty, withInventory, SourceProperty},
		{SourceInventory, sushy("1.0.0", "1.00"), SourceInventory},
	} {
		assert.Equal(t, c.want, SourceFor(comp("BIOS", KindBIOS, "^BIOS$", "1.1", c.source), c.s), "%q on %v", c.source, c.s.NoInventory)
	}
}

// Each row says where its version was read; a BMC without an inventory
// is judged by its properties, a nic by the adapters its pattern picks.
func TestJudgeReadsEachComponentWhereTheBMCKeepsIt(t *testing.T) {
	s := sushy("1.0.0", "1.00")
	bios := JudgeComponent(comp("BIOS", KindBIOS, "^BIOS$", "1.1.0", ""), s)
	require.Len(t, bios, 1)
	assert.Equal(t, Row{Component: "BIOS", Kind: KindBIOS, Name: "System", Source: "System.BiosVersion", Current: "1.0.0", Minimum: "1.1.0",
		Status: Below, Why: "1.0.0 is older than 1.1.0"}, bios[0])

	bmc := JudgeComponent(comp("BMC", KindBMC, "BMC", "1.00", ""), s)
	assert.Equal(t, AtBaseline, Worst(bmc))
	assert.Equal(t, "Manager.FirmwareVersion", bmc[0].Source)

	nic := JudgeComponent(comp("Broadcom", KindNIC, "Broadcom", "22.31.6", ""), s)
	require.Len(t, nic, 1, "only the adapter the pattern picks")
	assert.Equal(t, "NetworkAdapters/NIC.Slot.1.Controllers[0].FirmwarePackageVersion", nic[0].Source)
	assert.Equal(t, Below, nic[0].Status)
	assert.Len(t, JudgeComponent(comp("NICs", KindNIC, "", "1.0", SourceProperty), s), 2, "no pattern: every adapter")

	inv := JudgeComponent(comp("BIOS", KindBIOS, "^BIOS$", "1.14.0", ""), dellServer("1.13.0", "7.00.30.00", "22.31.6"))
	assert.Equal(t, "FirmwareInventory/Installed-159-1.13.0__BIOS.Setup.1-1", inv[0].Source)
	assert.Equal(t, "Installed-159-1.13.0__BIOS.Setup.1-1", inv[0].ID)
}

// What cannot be read is unknown, naming why — never at baseline.
func TestJudgeUnknownSources(t *testing.T) {
	s := sushy("1.0.0", "1.00")
	for name, c := range map[string]struct {
		c   Component
		s   Server
		why string
	}{
		"inventory asked, none there": {comp("BIOS", KindBIOS, "^BIOS$", "1.1", SourceInventory), s,
			"the baseline reads BIOS from the FirmwareInventory (source: inventory), which the BMC does not have: UpdateService/FirmwareInventory: HTTP 404"},
		"kind other, no inventory": {comp("CPLD", KindOther, "CPLD", "1.1", ""), s,
			"the BMC has no FirmwareInventory (UpdateService/FirmwareInventory: HTTP 404) and kind other has no standard version property"},
		"no storage shown": {comp("PERC", KindStorage, "", "52.0", ""), s, "the BMC shows no StorageController FirmwareVersion"},
		"no adapter picked": {comp("Mellanox", KindNIC, "ConnectX", "16.0", ""), s,
			`no resource showing NetworkAdapter Controllers[].FirmwarePackageVersion matches "ConnectX" by Id or Name`},
		"read failed": {comp("PERC", KindStorage, "", "52.0", ""), func() Server {
			x := sushy("1.0.0", "1.00")
			x.PropertyErrors = map[string]string{KindStorage: "Systems/1/Storage: HTTP 500"}
			return x
		}(), "the BMC shows no StorageController FirmwareVersion (Systems/1/Storage: HTTP 500)"},
		"property asked, BMC with an inventory that read none": {comp("BMC", KindBMC, "", "7.0", SourceProperty), dellServer("1.13.0", "7.00.30.00", "22.31.6"),
			"the BMC shows no Manager.FirmwareVersion"},
	} {
		t.Run(name, func(t *testing.T) {
			rows := JudgeComponent(c.c, c.s)
			require.Len(t, rows, 1)
			assert.Equal(t, Unknown, rows[0].Status)
			assert.Contains(t, rows[0].Why, c.why)
			assert.Empty(t, rows[0].Source, "nothing was read")
		})
	}
}

// The plan and the Replace's refusal name where a version was read when
// no inventory member did.
func TestPlanAndRefusalNameTheSource(t *testing.T) {
	b := Baseline{{Match: Match{Manufacturer: "Contoso"}, Components: []Component{
		comp("BMC", KindBMC, "BMC", "1.10", ""), comp("BIOS", KindBIOS, "^BIOS$", "1.1.0", "")}}}
	p := PlanFor(b, sushy("1.0.0", "1.00"))
	assert.Equal(t, []string{"BIOS", "BMC"}, p.Names())
	err := CheckReplace("rack1-c1", "4.2.0", p, false)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "below: BIOS (System.BiosVersion) 1.0.0, requires 1.1.0; BMC (Manager.FirmwareVersion) 1.00, requires 1.10")
}

// One finding per component, its rows together: what was read and
// where, the minimum, and why when not at baseline.
func TestFindingsGroupRowsByComponent(t *testing.T) {
	rows := Judge(Baseline{dellEntry()}, dellServer("1.14.0", "7.00.30.00", "22.0.1")).Rows
	got := ByComponent(rows)
	require.Len(t, got, 3)
	assert.Equal(t, "BIOS", got[0].Component)
	assert.Equal(t, "1.14.0 (FirmwareInventory/Installed-159-1.14.0__BIOS.Setup.1-1), minimum 1.14.0", got[0].Text())
	assert.Equal(t, Unknown, got[1].Status)
	assert.Equal(t, `no version read, minimum 7.00.30.00: no FirmwareInventory member matches "iDRAC"`, got[1].Text())
	assert.Equal(t, Below, got[2].Status, "one port below makes the NIC below")
	assert.Equal(t, "22.0.1 (FirmwareInventory/Installed-NIC.Integrated.1-1), 22.31.6 (FirmwareInventory/Installed-NIC.Integrated.1-2), minimum 22.31.6: 22.0.1 is older than 22.31.6",
		got[2].Text())
}

func TestValidateSource(t *testing.T) {
	e := dellEntry()
	e.Components[0].Source = SourceProperty
	e.Components[0].Inventory = "" // not needed where the property is read
	e.Components[1].Source = SourceInventory
	require.Empty(t, Baseline{e}.Validate())

	bad := Baseline{{Match: Match{Manufacturer: "HPE"}, Components: []Component{
		comp("ROM", KindBIOS, "ROM", "1.0", "Redfish"),
		comp("CPLD", KindOther, "CPLD", "1.0", SourceProperty),
		comp("iLO", KindBMC, "", "2.0", SourceInventory),
	}}}
	got := map[string]string{}
	for _, p := range bad.Validate() {
		got[p.Field] = p.Value + " — " + p.Message
	}
	assert.Equal(t, map[string]string{
		"[0].components[0].source":    "Redfish — allowed: inventory, property (default: inventory where the BMC has a FirmwareInventory, else property)",
		"[0].components[1].source":    "property — kind other has no standard version property (only bios, nic, storage, bmc have: bios → System.BiosVersion, nic → NetworkAdapter Controllers[].FirmwarePackageVersion, storage → StorageController FirmwareVersion, bmc → Manager.FirmwareVersion); use inventory or leave source out",
		"[0].components[2].inventory": " — required: a regular expression over FirmwareInventory member Ids and Names, e.g. ^BIOS$",
	}, got, "every problem at once, each with its field, value and what is allowed")
}
