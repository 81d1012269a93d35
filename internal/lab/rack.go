package lab

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rackroll/rackroll/internal/lab/events"
)

// RackRequest is the admin endpoint's body for POST /rack: the racks or
// servers of lab.unracked to rack now.
type RackRequest struct {
	Names []string `json:"names"`
}

// RackResult says what was racked: each server's BMC address.
type RackResult struct {
	Racked []MachineStatus `json:"racked"`
}

// Rack racks and installs the named racks or servers, as a site's
// installer brings up a delivered server: its BMC starts answering (the
// profile the inventory names, a certificate from the lab's CA), the
// machine powers on and boots the runtime the installer wrote, and its
// kubelet registers the Node, which turns Ready. Nothing of the control
// plane changes: the server joins as management or compute, and rackroll
// re-places the roles once the operator registers the grown inventory.
// Every name is checked before anything is racked.
func (l *Lab) Rack(names ...string) (RackResult, error) {
	servers, err := l.toRack(names)
	if err != nil {
		return RackResult{}, err
	}
	var res RackResult
	for _, n := range servers {
		m := l.machines[n]
		if err := l.serveBMC(m); err != nil {
			return res, err
		}
		l.mu.Lock()
		delete(l.unracked, n)
		l.mu.Unlock()
		l.Events.Emit(events.Racked, n, m.Rack, map[string]any{"bmc": m.URL, "profile": m.Profile})
		m.BMC.PowerButton()
		res.Racked = append(res.Racked, l.status(m))
	}
	return res, nil
}

// toRack resolves names (racks or servers) to the unracked servers they
// name, in inventory order, or says which name is wrong and what is
// allowed.
func (l *Lab) toRack(names []string) ([]string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var waiting []string
	for _, n := range l.order {
		if l.unracked[n] {
			waiting = append(waiting, n)
		}
	}
	allowed := "none: every server of this lab is racked"
	if len(waiting) > 0 {
		allowed = strings.Join(waiting, ", ") + " (or their racks)"
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("name a rack or server to rack: not racked yet are %s", allowed)
	}
	var out []string
	for _, want := range names {
		found := false
		for _, n := range l.order {
			m := l.machines[n]
			if m.Name != want && m.Rack != want {
				continue
			}
			found = true
			if l.unracked[n] && !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
		if !found {
			return nil, fmt.Errorf("rack %q: no rack or BMM of this lab has that name; not racked yet are %s", want, allowed)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("rack %s: already racked; not racked yet are %s", strings.Join(names, ", "), allowed)
	}
	return out, nil
}

// isUnracked reports whether server n waits to be racked.
func (l *Lab) isUnracked(n string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.unracked[n]
}
