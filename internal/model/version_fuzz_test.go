package model

import "testing"

// FuzzParseVersion: the parser is strict, so a version that parses prints
// back as exactly the input; nothing panics; CheckUpgrade against a fixed
// version never panics and refuses the version itself.
func FuzzParseVersion(f *testing.F) {
	for _, s := range []string{"4.1.2", "0.0.0", "10.20.30", "4.1", "4.1.2.3", "04.1.2", "+1.2.3", " 1.2.3", "1.2.-3",
		"1..2", "", "99999999999999999999.0.0", "4.1.2 ", "٣.1.2", "1.2.3-rc1"} {
		f.Add(s)
	}
	base := RuntimeVersion{Major: 4, Minor: 1, Patch: 2}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseVersion(s)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		if v.String() != s {
			t.Fatalf("ParseVersion(%q) = %v: prints differently", s, v)
		}
		if v.Major < 0 || v.Minor < 0 || v.Patch < 0 {
			t.Fatalf("negative part in %v", v)
		}
		if v.Compare(v) != 0 || base.Compare(v) != -v.Compare(base) {
			t.Fatalf("Compare not antisymmetric for %v", v)
		}
		if CheckUpgrade(v, v) == nil {
			t.Fatalf("upgrade %v to itself accepted", v)
		}
		if err := CheckUpgrade(base, v); err == nil && v.Compare(base) <= 0 {
			t.Fatalf("upgrade 4.1.2 to %v accepted", v)
		}
	})
}
