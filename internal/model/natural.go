package model

import "sort"

// NaturalLess orders names the way people read rack and server names:
// digit runs compare by value, so rack2 < rack10.
func NaturalLess(a, b string) bool {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if isDigit(a[i]) && isDigit(b[j]) {
			ei, ej := digitsEnd(a, i), digitsEnd(b, j)
			na, nb := trimZeros(a[i:ei]), trimZeros(b[j:ej])
			if len(na) != len(nb) {
				return len(na) < len(nb)
			}
			if na != nb {
				return na < nb
			}
			i, j = ei, ej
			continue
		}
		if a[i] != b[j] {
			return a[i] < b[j]
		}
		i++
		j++
	}
	if i < len(a) || j < len(b) {
		return len(a)-i < len(b)-j
	}
	// Equal under natural order (rack01 vs rack1): fall back to bytes so the
	// order stays total and sorting deterministic.
	return a < b
}

// SortNatural sorts names in place with NaturalLess.
func SortNatural(names []string) {
	sort.SliceStable(names, func(i, j int) bool { return NaturalLess(names[i], names[j]) })
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func digitsEnd(s string, i int) int {
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}

func trimZeros(s string) string {
	for len(s) > 1 && s[0] == '0' {
		s = s[1:]
	}
	return s
}
