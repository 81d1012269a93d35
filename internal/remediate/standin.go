package remediate

import (
	"fmt"
	"sort"
	"strings"

	"github.com/rackroll/rackroll/internal/model"
)

// Refusal is a server a failover could not promote to active KCP, and why.
type Refusal struct {
	BMM string `json:"bmm"`
	Why string `json:"why"`
}

func (r Refusal) String() string { return r.BMM + ": " + r.Why }

// Refusals says why each server was refused, in the order given.
func Refusals(rs []Refusal) string {
	if len(rs) == 0 {
		return "no spare and no management server"
	}
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.String()
	}
	return strings.Join(out, "; ")
}

// NextKCP picks the server a failover of failed promotes when the spare
// cannot be (docs/control-plane.md): a healthy management server (or a
// usable spare), in the rack with the fewest active KCPs, another rack
// than the failed KCP's where possible, then natural rack and server
// order. refused holds the servers this failover tried already and why
// (a provisioning that failed, a lease refused). When none is left it
// returns "" and every server it considered, each with why it was refused:
// the site then stays a KCP short and the operator reads why.
func NextKCP(c model.Cluster, failed string, refused map[string]string) (string, []Refusal) {
	fb, _ := c.BMM(failed)
	kcps := map[string]int{}
	for _, b := range c.BMMs {
		if b.Name != failed && b.HasRole(model.RoleKCP) {
			kcps[b.Rack]++
		}
	}
	var cands []model.BMM
	var out []Refusal
	for _, b := range c.BMMs {
		role := RoleOf(b)
		if b.Name == failed || role != model.RoleManagement && role != model.RoleKCPSpare {
			continue
		}
		if why := standInRefused(b, refused); why != "" {
			out = append(out, Refusal{BMM: b.Name, Why: why})
			continue
		}
		cands = append(cands, b)
	}
	sort.SliceStable(out, func(i, j int) bool { return model.NaturalLess(out[i].BMM, out[j].BMM) })
	if len(cands) == 0 {
		return "", out
	}
	sameRack := func(b model.BMM) bool { return fb != nil && b.Rack == fb.Rack }
	sort.SliceStable(cands, func(i, j int) bool {
		a, b := cands[i], cands[j]
		switch {
		case kcps[a.Rack] != kcps[b.Rack]:
			return kcps[a.Rack] < kcps[b.Rack]
		case sameRack(a) != sameRack(b):
			return !sameRack(a)
		case a.Rack != b.Rack:
			return model.NaturalLess(a.Rack, b.Rack)
		}
		return model.NaturalLess(a.Name, b.Name)
	})
	return cands[0].Name, out
}

// standInRefused is why b cannot be promoted now ("" when it can). A spare
// may be deprovisioned (promotion provisions it); a management server must
// be serving: healthy, Ready and provisioned.
func standInRefused(b model.BMM, refused map[string]string) string {
	if why, ok := refused[b.Name]; ok {
		return why
	}
	spare := RoleOf(b) == model.RoleKCPSpare
	switch {
	case b.MarkedUnhealthy():
		return "marked Unhealthy"
	case spare:
		return ""
	case b.ReadyState != model.ReadyTrue:
		return fmt.Sprintf("its node is not Ready (%s)", orNone(b.ReadyState))
	case b.ReadOnlyRootFS:
		return "its root filesystem is read-only"
	case b.DetailedStatus != "" && b.DetailedStatus != model.BMMProvisioned:
		return "it is " + b.DetailedStatus
	}
	return ""
}

func orNone(s string) string {
	if s == "" {
		return "never seen"
	}
	return s
}
