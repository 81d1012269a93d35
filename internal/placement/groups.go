package placement

import "github.com/rackroll/rackroll/internal/model"

// Management groups: the runtime upgrade takes the management servers that
// are not KCPs in these two groups, so each should span racks.
const (
	GroupA = "a"
	GroupB = "b"
)

// groupCounter tracks group sizes, overall and per rack.
type groupCounter struct {
	total  [2]int
	inRack map[string]*[2]int
}

func newGroupCounter() *groupCounter { return &groupCounter{inRack: map[string]*[2]int{}} }

func (g *groupCounter) add(rack string, group int) {
	c, ok := g.inRack[rack]
	if !ok {
		c = &[2]int{}
		g.inRack[rack] = c
	}
	c[group]++
	g.total[group]++
}

// choose prefers the group with fewer members in the rack (so both groups
// span racks), then the smaller group, then a; but never lets the group
// sizes differ by more than one.
func (g *groupCounter) choose(rack string) int {
	c := [2]int{}
	if r, ok := g.inRack[rack]; ok {
		c = *r
	}
	pick := 0
	switch {
	case c[1] < c[0]:
		pick = 1
	case c[1] == c[0] && g.total[1] < g.total[0]:
		pick = 1
	}
	if g.total[pick]+1-g.total[1-pick] > 1 {
		pick = 1 - pick
	}
	return pick
}

func groupName(i int) string { return [2]string{GroupA, GroupB}[i] }

// splitGroups takes the still-free management servers one per rack per
// round, racks in natural order, and assigns each a group.
func splitGroups(racks []rack) map[string]string {
	out := map[string]string{}
	g := newGroupCounter()
	for round := 0; ; round++ {
		more := false
		for _, r := range racks {
			if round < len(r.free) {
				more = true
				i := g.choose(r.name)
				g.add(r.name, i)
				out[r.free[round]] = groupName(i)
			}
		}
		if !more {
			return out
		}
	}
}

// ChooseGroup is the group a server in rack should join, given the BMMs'
// current groups; used when a failed KCP is relabelled management.
func ChooseGroup(bmms []model.BMM, rack string) string {
	g := newGroupCounter()
	for _, b := range bmms {
		switch b.ManagementGroup {
		case GroupA:
			g.add(b.Rack, 0)
		case GroupB:
			g.add(b.Rack, 1)
		}
	}
	return groupName(g.choose(rack))
}
