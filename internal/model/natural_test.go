package model

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestNaturalLess(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"rack2", "rack10", true},
		{"rack10", "rack2", false},
		{"rack9", "rack10", true},
		{"rack1", "rack1", false},
		{"rack1", "rack1a", true},
		{"rack1-c2", "rack1-c10", true},
		{"rack1-c10", "rack1-mgmt1", true},
		{"a", "b", true},
		{"", "a", true},
		{"rack01", "rack1", true}, // equal numbers: byte order keeps it total
		{"rack1", "rack01", false},
		{"rack001", "rack2", true},
		{"2", "10", true},
		{"rack", "rack1", true},
	} {
		assert.Equal(t, tc.want, NaturalLess(tc.a, tc.b), "%q < %q", tc.a, tc.b)
	}
}

func TestSortNatural(t *testing.T) {
	names := []string{"rack10", "rack2", "rack1", "rack16", "rack9", "rack3"}
	SortNatural(names)
	assert.Equal(t, []string{"rack1", "rack2", "rack3", "rack9", "rack10", "rack16"}, names)
}
