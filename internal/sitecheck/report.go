// Package sitecheck probes a real site, read-only, before rackroll is
// trusted with it: each BMC (reachable, TLS verified, login, sessions, the
// System, the virtual CD, boot targets, reset types) and the Kubernetes API
// (reachable, each BMM's node and version, the permissions rackroll needs).
// It never changes anything: no power action, no PATCH, no media insert.
package sitecheck

// Item is one finding: what was checked, whether it holds, what was seen
// and, when it does not hold, what to fix. A Blocker stops rackroll from
// working; a warning does not.
type Item struct {
	Check   string `json:"check"`
	OK      bool   `json:"ok"`
	Detail  string `json:"detail,omitempty"`
	Fix     string `json:"fix,omitempty"`
	Blocker bool   `json:"blocker,omitempty"`
}

// Row is everything checked for one BMM.
type Row struct {
	BMM   string `json:"bmm"`
	Node  string `json:"node"`
	Items []Item `json:"items"`
}

// Report is the whole probe.
type Report struct {
	Cluster    string `json:"cluster"`
	Kubernetes []Item `json:"kubernetes"`
	BMMs       []Row  `json:"bmms"`
}

// Blockers counts the findings that stop rackroll from working.
func (r Report) Blockers() int {
	n := 0
	count := func(items []Item) {
		for _, it := range items {
			if !it.OK && it.Blocker {
				n++
			}
		}
	}
	count(r.Kubernetes)
	for _, row := range r.BMMs {
		count(row.Items)
	}
	return n
}

// OK is a check that holds.
func OK(check, detail string) Item { return Item{Check: check, OK: true, Detail: detail} }

// Blocker is a failed check rackroll cannot work without.
func Blocker(check, detail, fix string) Item {
	return Item{Check: check, Detail: detail, Fix: fix, Blocker: true}
}

// Warning is a failed check rackroll works around.
func Warning(check, detail, fix string) Item { return Item{Check: check, Detail: detail, Fix: fix} }
