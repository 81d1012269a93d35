package api

import "time"

// Guards says what the upgrade's guards saw, one line each, for `upgrade
// status` and the Temporal UI (docs/behaviour-upgrade.md#guards). Nothing before
// they ran.
func (s UpgradeStatus) Guards() []string {
	var out []string
	if c := s.Image; c != nil {
		verdict := "ok"
		if !c.OK {
			verdict = "REFUSED"
		}
		out = append(out, "image "+verdict+": "+c.URL+" answered "+c.Answer)
	}
	for _, c := range s.Capacity {
		out = append(out, "capacity "+c.Verdict()+": "+c.Message)
	}
	if s.Canary != "" {
		out = append(out, "canary: "+s.Canary)
	}
	return out
}

// CapacityCheck is the capacity guard's judgement before a drain.
type CapacityCheck struct {
	Unit    string   `json:"unit"`
	Fits    bool     `json:"fits"`
	Message string   `json:"message"`
	Pending []string `json:"pending,omitempty"` // pods that would find no node
	// NotChecked: the guard could not read the cluster (Message says why)
	// and did not stop the drain.
	NotChecked bool `json:"notChecked,omitempty"`
	// Held: under capacityPolicy Pause the batch waited for the operator
	// before its drain; ContinuedAt is when continue-update let it go (nil:
	// cancelled, or still waiting).
	Held        bool       `json:"held,omitempty"`
	ContinuedAt *time.Time `json:"continuedAt,omitempty"`
	// Servers are the servers a hold kept back (none was started).
	Servers []string `json:"servers,omitempty"`
}

// Verdict is the check in a word: ok, SHORT or NOT CHECKED (`upgrade
// status` and `upgrade plan` say it alike).
func (c CapacityCheck) Verdict() string {
	switch {
	case c.NotChecked:
		return "NOT CHECKED"
	case !c.Fits:
		return "SHORT"
	}
	return "ok"
}

// CapacityAsk has a rack child run the capacity guard before it drains its
// first wave, so the parent's history carries the check only when a batch
// does not fit: the first wave's nodes, whether a shortfall holds the rack
// for the operator (capacityPolicy Pause), and the site queue to ask on.
type CapacityAsk struct {
	Nodes []string `json:"nodes"`
	Hold  bool     `json:"hold,omitempty"`
	Queue string   `json:"queue,omitempty"`
	// Later are the nodes of the servers after the first wave, by server:
	// each is drained as a batch of its own when a slot frees, and checked
	// before it.
	Later map[string]string `json:"later,omitempty"`
}
