package firmware

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Status is a component's current version judged against its baseline.
type Status string

const (
	// AtBaseline: the current version is the minimum or newer.
	AtBaseline Status = "ok"
	// Below: the current version is older than the minimum.
	Below Status = "below"
	// Unknown: rackroll cannot tell. The component's source (SourceFor)
	// shows it nowhere or with no version, or its version cannot be
	// compared with the minimum (no number in it, or another family).
	// Unknown is never taken for "at baseline": a check that needs the
	// baseline treats it like below, naming why.
	Unknown Status = "unknown"
)

// Version is a vendor version string read the one way rackroll compares
// them. Vendors do not use semver: iDRAC "7.00.00.171", iLO "2.78" (its
// Manager says "iLO 5 v2.78"), HPE System ROM "U46 v2.90 (03/14/2023)",
// Supermicro "3.10" or "01.01.06", Lenovo XCC "TGBT56T 6.30", Broadcom
// "22.31.6", a PERC "52.16.1-4405". The text splits on white space; the
// number is the first token made only of digit groups joined by '.', '-'
// or '_' (a leading 'v' allowed) and holding at least one separator, else
// the first token of digits alone; the family is the text before it
// ("U46", "iLO 5", "TGBT56T"); what follows (dates, build notes) is not
// compared.
type Version struct {
	Raw     string
	Family  string // lower case, single-spaced; "" when none
	Numbers []int
}

var numberToken = regexp.MustCompile(`^[vV]?(\d+(?:[._-]\d+)*)$`)

// ParseVersion reads s; an error says it holds no version number.
func ParseVersion(s string) (Version, error) {
	v := Version{Raw: strings.TrimSpace(s)}
	tokens := strings.Fields(v.Raw)
	at := -1
	for pass := 0; pass < 2 && at < 0; pass++ {
		for i, t := range tokens {
			m := numberToken.FindStringSubmatch(t)
			if m != nil && (pass == 1 || strings.ContainsAny(m[1], "._-")) {
				at = i
				break
			}
		}
	}
	if at < 0 {
		return v, fmt.Errorf("holds no version number (such as 2.78, 7.00.00.171 or U46 v2.90)")
	}
	v.Family = strings.ToLower(strings.Join(tokens[:at], " "))
	for _, g := range strings.FieldsFunc(numberToken.FindStringSubmatch(tokens[at])[1], func(r rune) bool { return r == '.' || r == '-' || r == '_' }) {
		n, err := strconv.Atoi(g)
		if err != nil {
			return v, fmt.Errorf("number group %q is too large", g)
		}
		v.Numbers = append(v.Numbers, n)
	}
	return v, nil
}

// Compare judges current against minimum and says why:
//
//   - the same text (ignoring case and surrounding space) is at baseline,
//     whatever it looks like;
//   - an empty current, or either side without a number, is unknown;
//   - when both name a family they must be the same (a "U46" ROM is not
//     comparable with a "U32" one: another platform), else unknown; a
//     minimum without a family compares the numbers alone;
//   - numbers compare group by group as integers ("7.00.30.00" >
//     "7.00.00.171", "2.90" > "2.81", "01.01.06" = "1.1.6"), a missing
//     trailing group counting as 0 ("3.1" = "3.1.0").
func Compare(current, minimum string) (Status, string) {
	if strings.TrimSpace(current) == "" {
		return Unknown, "the BMC shows no version"
	}
	if strings.EqualFold(strings.TrimSpace(current), strings.TrimSpace(minimum)) {
		return AtBaseline, "the required version"
	}
	cur, err := ParseVersion(current)
	if err != nil {
		return Unknown, fmt.Sprintf("current version %q %v", current, err)
	}
	want, err := ParseVersion(minimum)
	if err != nil {
		return Unknown, fmt.Sprintf("minimum %q %v", minimum, err)
	}
	if cur.Family != "" && want.Family != "" && cur.Family != want.Family {
		return Unknown, fmt.Sprintf("current version %q is of family %q, the minimum %q of %q: not comparable", current, cur.Family, minimum, want.Family)
	}
	switch c := compareNumbers(cur.Numbers, want.Numbers); {
	case c < 0:
		return Below, fmt.Sprintf("%s is older than %s", current, minimum)
	case c > 0:
		return AtBaseline, fmt.Sprintf("%s is newer than %s", current, minimum)
	}
	return AtBaseline, "the required version"
}

func compareNumbers(a, b []int) int {
	for i := 0; i < max(len(a), len(b)); i++ {
		x, y := 0, 0
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return 0
}
