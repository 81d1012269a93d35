package firmware

import (
	"slices"
	"strings"
)

// Finding is one component of a server against its baseline: its rows (a
// FirmwareInventory member or a resource each: a NIC's ports) together,
// so a report says one thing per component.
type Finding struct {
	Component string `json:"component"`
	Kind      string `json:"kind"`
	Minimum   string `json:"minimum"`
	// Status is the worst of the rows' (Worst).
	Status Status `json:"status"`
	Rows   []Row  `json:"rows"`
}

// ByComponent groups rows by component, in the order the components
// first appear.
func ByComponent(rows []Row) []Finding {
	var out []Finding
	for _, r := range rows {
		i := slices.IndexFunc(out, func(f Finding) bool { return f.Component == r.Component })
		if i < 0 {
			out = append(out, Finding{Component: r.Component, Kind: r.Kind, Minimum: r.Minimum})
			i = len(out) - 1
		}
		out[i].Rows = append(out[i].Rows, r)
	}
	for i := range out {
		out[i].Status = Worst(out[i].Rows)
	}
	return out
}

// Read is each version read with where it was read
// ("1.13.2 (System.BiosVersion)"), "" when none was.
func (f Finding) Read() string {
	var parts []string
	for _, r := range f.Rows {
		switch {
		case r.Current == "":
		case r.Source != "":
			parts = append(parts, r.Current+" ("+r.Source+")")
		default:
			parts = append(parts, r.Current)
		}
	}
	return strings.Join(parts, ", ")
}

// Text is the finding as one line: what was read, the minimum and, when
// not at baseline, why ("1.10.0 (System.BiosVersion), minimum 1.13.2:
// 1.10.0 is older than 1.13.2").
func (f Finding) Text() string {
	read := f.Read()
	if read == "" {
		read = "no version read"
	}
	s := read + ", minimum " + f.Minimum
	if f.Status == AtBaseline {
		return s
	}
	var why []string
	for _, r := range f.Rows {
		if r.Status != AtBaseline && !slices.Contains(why, r.Why) {
			why = append(why, r.Why)
		}
	}
	return s + ": " + strings.Join(why, "; ")
}
