package model

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseVersion(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want RuntimeVersion
	}{
		{"4.1.2", RuntimeVersion{4, 1, 2}},
		{"0.0.0", RuntimeVersion{0, 0, 0}},
		{"10.20.30", RuntimeVersion{10, 20, 30}},
	} {
		got, err := ParseVersion(tc.in)
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, got)
		assert.Equal(t, tc.in, got.String())
	}
}

func TestParseVersionRefuses(t *testing.T) {
	for _, in := range []string{"", "4", "4.1", "4.1.2.3", "v4.1.2", "4.-1.2", "4.01.2", "4.1.x",
		" 4.1.2", "4.1.2 ", "4..2", "+4.1.2", "4.1.2-rc1", "99999999999999999999.0.0"} {
		_, err := ParseVersion(in)
		require.Error(t, err, in)
		assert.Contains(t, err.Error(), `"`+in+`"`)
		assert.Contains(t, err.Error(), "major.minor.patch")
	}
}

func TestCompare(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"4.1.2", "4.1.2", 0},
		{"4.1.2", "4.1.3", -1},
		{"4.2.0", "4.1.9", 1},
		{"5.0.0", "4.9.9", 1},
		{"4.10.0", "4.9.0", 1},
		{"3.99.99", "4.0.0", -1},
	} {
		assert.Equal(t, tc.want, mustVersion(t, tc.a).Compare(mustVersion(t, tc.b)), "%s vs %s", tc.a, tc.b)
	}
}

func TestCheckUpgrade(t *testing.T) {
	for _, tc := range []struct {
		from, to string
		err      string // substring; "" means allowed
	}{
		{"4.1.2", "4.1.5", ""},
		{"4.1.2", "4.1.3", ""},
		{"4.1.2", "4.2.0", ""},
		{"4.1.2", "4.2.5", ""},
		{"4.9.0", "4.10.0", ""},
		{"4.3.7", "5.0.0", ""},
		{"4.3.7", "5.0.2", ""},
		{"4.1.2", "4.1.2", "targetVersion 4.1.2 is the current version"},
		{"4.1.2", "4.1.1", "downgrades are not allowed"},
		{"4.2.0", "4.1.9", "older than the current version 4.2.0"},
		{"5.0.0", "4.9.0", "downgrades are not allowed"},
		{"4.1.2", "4.3.0", "targetVersion 4.3.0 skips minor release 4.2: upgrade to 4.2.x first"},
		{"4.1.9", "4.5.0", "skips minor release 4.2"},
		{"4.3.0", "5.1.0", "targetVersion 5.1.0 skips minor release 5.0: upgrade to 5.0.x first"},
		{"4.3.0", "6.0.0", "targetVersion 6.0.0 skips major release 5: upgrade to 5.0.x first"},
	} {
		err := CheckUpgrade(mustVersion(t, tc.from), mustVersion(t, tc.to))
		if tc.err == "" {
			assert.NoError(t, err, "%s -> %s", tc.from, tc.to)
			continue
		}
		if assert.Error(t, err, "%s -> %s", tc.from, tc.to) {
			assert.Contains(t, err.Error(), tc.err)
		}
	}
}

func mustVersion(t *testing.T, s string) RuntimeVersion {
	t.Helper()
	v, err := ParseVersion(s)
	require.NoError(t, err)
	return v
}
