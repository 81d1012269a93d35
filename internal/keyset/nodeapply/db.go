package nodeapply

import (
	"strings"
)

// table is one of the colon-separated account files (/etc/passwd, group,
// shadow, gshadow): its lines as they are, so that a line rackroll does
// not own is written back byte for byte, comments and odd spacing
// included.
type table struct {
	lines []string
	// final says whether the file ended with a newline; kept as it was.
	final bool
}

func parseTable(b []byte) table {
	s := string(b)
	if s == "" {
		return table{final: true}
	}
	final := strings.HasSuffix(s, "\n")
	return table{lines: strings.Split(strings.TrimSuffix(s, "\n"), "\n"), final: final}
}

func (t table) bytes() []byte {
	if len(t.lines) == 0 {
		return nil
	}
	s := strings.Join(t.lines, "\n")
	if t.final {
		s += "\n"
	}
	return []byte(s)
}

// fields is the line of name split at its colons, nil when none.
func (t table) fields(name string) []string {
	if i := t.index(name); i >= 0 {
		return strings.Split(t.lines[i], ":")
	}
	return nil
}

func (t table) index(name string) int {
	for i, l := range t.lines {
		if n, _, ok := strings.Cut(l, ":"); ok && n == name {
			return i
		}
	}
	return -1
}

// set puts line in place of name's, or appends it.
func (t *table) set(name, line string) {
	if i := t.index(name); i >= 0 {
		t.lines[i] = line
		return
	}
	t.lines = append(t.lines, line)
	t.final = true
}

// drop removes name's line.
func (t *table) drop(name string) {
	if i := t.index(name); i >= 0 {
		t.lines = append(t.lines[:i:i], t.lines[i+1:]...)
	}
}

// each calls f with every entry's fields (comments and blank lines skipped).
func (t table) each(f func(fields []string)) {
	for _, l := range t.lines {
		if l == "" || strings.HasPrefix(l, "#") || !strings.Contains(l, ":") {
			continue
		}
		f(strings.Split(l, ":"))
	}
}

func (t table) clone() table {
	return table{lines: append([]string(nil), t.lines...), final: t.final}
}
