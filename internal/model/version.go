package model

import (
	"fmt"
	"strconv"
	"strings"
)

// RuntimeVersion is a platform runtime release, major.minor.patch.
type RuntimeVersion struct{ Major, Minor, Patch int }

// ParseVersion reads a strict major.minor.patch version such as 4.1.2.
func ParseVersion(s string) (RuntimeVersion, error) {
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return RuntimeVersion{}, versionError(s)
	}
	var n [3]int
	for i, p := range parts {
		v, ok := parseUint(p)
		if !ok {
			return RuntimeVersion{}, versionError(s)
		}
		n[i] = v
	}
	return RuntimeVersion{Major: n[0], Minor: n[1], Patch: n[2]}, nil
}

func versionError(s string) error {
	return fmt.Errorf("version %q is not valid: want major.minor.patch with non-negative integers, e.g. 4.1.2", s)
}

// parseUint accepts only plain decimal digits without leading zeros, so
// "+1", " 1" and "01" are refused rather than silently normalised.
func parseUint(s string) (int, bool) {
	if s == "" || (len(s) > 1 && s[0] == '0') {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return 0, false
		}
	}
	v, err := strconv.Atoi(s)
	return v, err == nil
}

func (v RuntimeVersion) String() string {
	return fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch)
}

// Compare returns -1, 0 or +1 as v is older than, equal to or newer than o.
func (v RuntimeVersion) Compare(o RuntimeVersion) int {
	for _, d := range [3]int{v.Major - o.Major, v.Minor - o.Minor, v.Patch - o.Patch} {
		if d < 0 {
			return -1
		}
		if d > 0 {
			return 1
		}
	}
	return 0
}

// CheckUpgrade applies the operator's release rule: patch releases are
// optional, minor releases cannot be skipped, no downgrades. A major bump is
// allowed only to the next major's first minor (X+1.0.y), because that is the
// release following the last minor of X; any later minor would skip it.
func CheckUpgrade(from, to RuntimeVersion) error {
	switch c := to.Compare(from); {
	case c == 0:
		return fmt.Errorf("targetVersion %s is the current version: nothing to upgrade", to)
	case c < 0:
		return fmt.Errorf("targetVersion %s is older than the current version %s: downgrades are not allowed", to, from)
	}
	switch {
	case to.Major == from.Major && to.Minor <= from.Minor+1:
		return nil
	case to.Major == from.Major:
		return fmt.Errorf("targetVersion %s skips minor release %d.%d: upgrade to %d.%d.x first",
			to, from.Major, from.Minor+1, from.Major, from.Minor+1)
	case to.Major > from.Major+1:
		return fmt.Errorf("targetVersion %s skips major release %d: upgrade to %d.0.x first",
			to, from.Major+1, from.Major+1)
	case to.Minor != 0:
		return fmt.Errorf("targetVersion %s skips minor release %d.0: upgrade to %d.0.x first",
			to, to.Major, to.Major)
	}
	return nil
}
