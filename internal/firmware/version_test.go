package firmware

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseVersionReadsVendorShapes(t *testing.T) {
	for _, c := range []struct {
		in      string
		family  string
		numbers []int
	}{
		{"7.00.00.171", "", []int{7, 0, 0, 171}},                     // iDRAC
		{"2.78", "", []int{2, 78}},                                   // iLO in FirmwareInventory
		{"iLO 5 v2.78", "ilo 5", []int{2, 78}},                       // iLO's Manager.FirmwareVersion
		{"2.78 Feb 02 2023", "", []int{2, 78}},                       // iLO with its date
		{"U46 v2.90 (03/14/2023)", "u46", []int{2, 90}},              // HPE System ROM
		{"3.10", "", []int{3, 10}},                                   // Supermicro
		{"01.01.06", "", []int{1, 1, 6}},                             // Supermicro BMC
		{"TGBT56T 6.30", "tgbt56t", []int{6, 30}},                    // Lenovo XCC
		{"52.16.1-4405", "", []int{52, 16, 1, 4405}},                 // PERC
		{"2", "", []int{2}},                                          // a bare number
		{"Build 2 of 1.20.25.00", "build 2 of", []int{1, 20, 25, 0}}, // the dotted token wins
		{"  1.13.2  ", "", []int{1, 13, 2}},                          // surrounding space
		{"BMC 1.20.25.00 2024-01-09", "bmc", []int{1, 20, 25, 0}},    // a trailing date is not compared
		{"v1.64", "", []int{1, 64}},                                  // a leading v
		{"P79 v1.45 (12/06/2017)", "p79", []int{1, 45}},              // DMTF mockup BIOS
		{"1.2.3", "", []int{1, 2, 3}},                                // iDRAC10 BIOS
		{"1.13.2 (build 42)", "", []int{1, 13, 2}},                   // parenthesised notes
		{"U46 v2.90", "u46", []int{2, 90}},                           // without the date
		{"iLO 5   v2.81", "ilo 5", []int{2, 81}},                     // runs of space
		{"X12STH 01.01.06", "x12sth", []int{1, 1, 6}},                // a board prefix
		{"V2.81", "", []int{2, 81}},                                  // an upper-case V
		{"1_2_3", "", []int{1, 2, 3}},                                // underscores
		{"2.0", "", []int{2, 0}},                                     // the lab's Supermicro BIOS
		{"A04 1.0", "a04", []int{1, 0}},                              // a letter-number prefix
		{"1.0.0.0 2.0.0.0", "", []int{1, 0, 0, 0}},                   // the first number wins
		{"Firmware 22.31.6", "firmware", []int{22, 31, 6}},           // words before
		{"22.31.6 NIC", "", []int{22, 31, 6}},                        // words after
		{"U32 v1.64 (08/11/2022)", "u32", []int{1, 64}},              // another ROM family
		{"15G 7.00.30.00", "15g", []int{7, 0, 30, 0}},                // a generation prefix
		{"1.20.25.00", "", []int{1, 20, 25, 0}},                      // iDRAC10
		{"4.4.6521", "", []int{4, 4, 6521}},                          // DMTF mockup BMC
		{"AFE120J 1", "afe120j", []int{1}},                           // digits alone after a build id
		{"v 1.2", "v", []int{1, 2}},                                  // a detached v is a family
		{"7.00.00.171 (Build 3)", "", []int{7, 0, 0, 171}},           // build notes
		{"iDRAC 7.00.00.171", "idrac", []int{7, 0, 0, 171}},          // a product prefix
		{"1.0", "", []int{1, 0}},                                     // two groups
		{"0.9", "", []int{0, 9}},                                     // zero first
		{"10.0", "", []int{10, 0}},                                   // two digits first
		{"3.1.0", "", []int{3, 1, 0}},                                // three groups
		{"1.2-3_4", "", []int{1, 2, 3, 4}},                           // mixed separators
		{"2023.01", "", []int{2023, 1}},                              // a year-like major
		{"rev 3", "rev", []int{3}},                                   // a revision
		{"1.13.2\t", "", []int{1, 13, 2}},                            // a trailing tab
		{"U46\tv2.90", "u46", []int{2, 90}},                          // a tab between
		{"ROM U46 v2.90", "rom u46", []int{2, 90}},                   // two family words
		{"Version 1.2", "version", []int{1, 2}},                      // a label
	} {
		v, err := ParseVersion(c.in)
		require.NoError(t, err, c.in)
		assert.Equal(t, c.family, v.Family, c.in)
		assert.Equal(t, c.numbers, v.Numbers, c.in)
	}
	for _, bad := range []string{"", "AFE120J", "1.20.25.00a", "(03/14/2023)", "latest", "v", "1..2"} {
		_, err := ParseVersion(bad)
		assert.Error(t, err, bad)
	}
}

func TestCompare(t *testing.T) {
	for _, c := range []struct {
		current, minimum string
		want             Status
	}{
		{"7.00.30.00", "7.00.00.171", AtBaseline}, // iDRAC: group by group, not as text
		{"7.00.00.171", "7.00.30.00", Below},
		{"2.81", "2.78", AtBaseline},
		{"2.78", "2.81", Below},
		{"iLO 5 v2.78", "2.81", Below}, // a minimum without family compares the number
		{"U46 v2.90 (03/14/2023)", "U46 v2.80", AtBaseline},
		{"U46 v1.64 (08/11/2022)", "U46 v2.90", Below},
		{"U32 v2.90", "U46 v2.80", Unknown}, // another platform's ROM
		{"3.10", "3.9", AtBaseline},         // Supermicro: 10 > 9, not "3.10" < "3.9"
		{"3.1", "3.10", Below},
		{"01.01.06", "1.1.6", AtBaseline}, // leading zeros
		{"3.1", "3.1.0", AtBaseline},      // a missing group is 0
		{"3.1", "3.1.1", Below},
		{"AFE120J", "AFE120J", AtBaseline}, // no number, but the same text
		{"afe120j ", "AFE120J", AtBaseline},
		{"AFE120J", "AFE122K", Unknown}, // no number to compare
		{"", "1.0", Unknown},            // no version shown
		{"52.16.1-4405", "52.16.1-4500", Below},
		{"TGBT56T 6.30", "6.20", AtBaseline},
	} {
		got, why := Compare(c.current, c.minimum)
		assert.Equal(t, c.want, got, "%q against %q: %s", c.current, c.minimum, why)
		assert.NotEmpty(t, why)
	}
}
