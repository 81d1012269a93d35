package firmware

import (
	"fmt"
	"regexp"
	"strings"
)

// Server is what a BMC shows of a server's firmware: the System's
// manufacturer and model, UpdateService/FirmwareInventory, and the
// versions the standard resources show.
type Server struct {
	Manufacturer string `json:"manufacturer"`
	Model        string `json:"model"`
	Items        []Item `json:"items"`
	// NoInventory: the BMC has no FirmwareInventory (no UpdateService,
	// none linked, a 404 or no member: InventoryWhy says which), so
	// versions are read from Properties. Never set in results recorded
	// before it existed: those BMCs had one.
	NoInventory  bool   `json:"noInventory,omitempty"`
	InventoryWhy string `json:"inventoryWhy,omitempty"`
	// Properties are the standard version properties the BMC shows;
	// PropertyErrors, per kind, why its resources could not be read.
	Properties     []Property        `json:"properties,omitempty"`
	PropertyErrors map[string]string `json:"propertyErrors,omitempty"`
}

// Item is one FirmwareInventory member (SoftwareInventory schema).
type Item struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	Version    string `json:"version"`
	Updateable bool   `json:"updateable"`
	// RelatedItem are the URIs of what the firmware runs on (the System,
	// the Manager, a NetworkAdapter).
	RelatedItem []string `json:"relatedItem,omitempty"`
}

// Installed reports whether the member is what runs. iDRAC also lists the
// image it would roll back to ("Previous-…") and images staged for a job
// ("Available-…") beside the running one ("Installed-…"); only the latter
// counts.
func (it Item) Installed() bool {
	return !strings.HasPrefix(it.ID, "Previous-") && !strings.HasPrefix(it.ID, "Available-")
}

// Row is one component of one server against its baseline.
type Row struct {
	Component string `json:"component"`
	Kind      string `json:"kind"`
	// ID and Name are the FirmwareInventory member's (Name: the
	// resource's, for a property); empty when none matched.
	ID   string `json:"id,omitempty"`
	Name string `json:"name,omitempty"`
	// Source says where Current was read: "FirmwareInventory/<member
	// id>" or a standard property ("System.BiosVersion"); empty when
	// nothing was.
	Source  string `json:"source,omitempty"`
	Current string `json:"current"`
	Minimum string `json:"minimum"`
	Status  Status `json:"status"`
	Why     string `json:"why"`
}

// Report is a server's firmware against a baseline. Entry is the match of
// the baseline entry that applied; Note says why there are no rows.
type Report struct {
	Entry string `json:"entry,omitempty"`
	Rows  []Row  `json:"rows"`
	Note  string `json:"note,omitempty"`
}

// Below lists the rows that are below the minimum.
func (r Report) Below() []Row { return r.with(Below) }

// Unknown lists the rows rackroll cannot judge.
func (r Report) Unknown() []Row { return r.with(Unknown) }

func (r Report) with(s Status) []Row {
	var out []Row
	for _, x := range r.Rows {
		if x.Status == s {
			out = append(out, x)
		}
	}
	return out
}

// Judge compares what a server shows with the baseline, one row per
// component and inventory member it matches (a component no member
// matches is one unknown row). A server no entry covers has no rows and a
// note: the baseline says nothing about it.
func Judge(b Baseline, s Server) Report {
	e, ok := b.For(s.Manufacturer, s.Model)
	if !ok {
		return Report{Note: fmt.Sprintf("no baseline entry matches %s %s", s.Manufacturer, s.Model)}
	}
	rep := Report{Entry: e.Match.String()}
	for _, c := range e.Components {
		rep.Rows = append(rep.Rows, JudgeComponent(c, s)...)
	}
	return rep
}

// JudgeComponent is one component against what s shows, read where
// SourceFor says: a row per installed FirmwareInventory member the
// component's pattern matches, or per resource showing its standard
// property; one unknown row when there is none.
func JudgeComponent(c Component, s Server) []Row {
	if SourceFor(c, s) == SourceProperty {
		return judgeProperty(c, s)
	}
	if s.NoInventory {
		return []Row{unknownRow(c, fmt.Sprintf("the baseline reads %s from the FirmwareInventory (source: %s), which the BMC does not have: %s",
			c.Name, SourceInventory, s.InventoryWhy))}
	}
	var rows []Row
	re, err := regexp.Compile(c.Inventory)
	for _, it := range s.Items {
		if err != nil || !it.Installed() || !(re.MatchString(it.ID) || re.MatchString(it.Name)) {
			continue
		}
		st, why := Compare(it.Version, c.Minimum)
		rows = append(rows, Row{Component: c.Name, Kind: c.Kind, ID: it.ID, Name: it.Name, Source: "FirmwareInventory/" + it.ID,
			Current: it.Version, Minimum: c.Minimum, Status: st, Why: why})
	}
	if len(rows) == 0 {
		rows = append(rows, unknownRow(c, fmt.Sprintf("no FirmwareInventory member matches %q", c.Inventory)))
	}
	return rows
}

// Worst is the status of a component's rows together: unknown before
// below before at baseline.
func Worst(rows []Row) Status {
	out := AtBaseline
	for _, r := range rows {
		switch {
		case r.Status == Unknown:
			return Unknown
		case r.Status == Below:
			out = Below
		}
	}
	return out
}
