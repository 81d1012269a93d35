// Package fleet holds the decisions of rolling a runtime release over a
// fleet of registered clusters (issue 52): which sites go in which wave —
// a canary first, then waves of a size or named explicitly — how long each
// wave bakes, and which verdicts halt the rollout. Pure functions: the
// fleet workflow and the starter call them.
package fleet

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rackroll/rackroll/internal/model"
)

// Spec is a fleet and how a release is rolled over it.
type Spec struct {
	Name string `json:"name"`
	// Clusters are the fleet's registered clusters.
	Clusters []string `json:"clusters"`
	// Canary are the sites upgraded first, alone in the first wave.
	Canary []string `json:"canary,omitempty"`
	// WaveSize: the sites after the canary go this many at a time, in the
	// order of Clusters; or Waves names each wave (not both).
	WaveSize int        `json:"waveSize,omitempty"`
	Waves    [][]string `json:"waves,omitempty"`
	// BakeMinutes is how long a finished wave runs before the next starts.
	BakeMinutes int `json:"bakeMinutes"`
}

// MaxSites bounds a fleet: the fleet run carries site names and verdicts
// only, so its payloads stay small at this size.
const MaxSites = 200

// MaxBakeMinutes bounds a bake (a week).
const MaxBakeMinutes = 7 * 24 * 60

// Wave is one step of the rollout: the sites started together, and the
// bake after them.
type Wave struct {
	Sites       []string `json:"sites"`
	BakeMinutes int      `json:"bakeMinutes"`
}

// Check names every problem of s at once; registered are the clusters the
// Temporal namespace has a ledger for.
func Check(s Spec, registered []string) error {
	var e model.ValidationError
	if s.Name == "" {
		e.Add("name", "", "required: the fleet's name")
	}
	if len(s.Clusters) == 0 {
		e.Add("clusters", "", "required: at least one registered cluster")
	}
	if len(s.Clusters) > MaxSites {
		e.Addf("clusters", fmt.Sprint(len(s.Clusters)), "at most %d sites in a fleet", MaxSites)
	}
	seen := map[string]bool{}
	for i, c := range s.Clusters {
		f := fmt.Sprintf("clusters[%d]", i)
		switch {
		case seen[c]:
			e.Add(f, c, "listed twice")
		case !slices.Contains(registered, c):
			e.Add(f, c, "not a registered cluster (`starter cluster register` first)"+known(registered))
		}
		seen[c] = true
	}
	inFleet := func(field string, names []string) {
		for i, c := range names {
			if !seen[c] {
				e.Add(fmt.Sprintf("%s[%d]", field, i), c, "not among the fleet's clusters")
			}
		}
	}
	inFleet("canary", s.Canary)
	switch {
	case s.WaveSize > 0 && len(s.Waves) > 0:
		e.Add("waves", fmt.Sprint(len(s.Waves)), "either waveSize or waves, not both")
	case s.WaveSize < 0:
		e.Add("waveSize", fmt.Sprint(s.WaveSize), "must be positive")
	case s.WaveSize == 0 && len(s.Waves) == 0 && len(s.Clusters) > len(s.Canary):
		e.Add("waveSize", "0", "required (or waves): how many sites go at a time after the canary")
	}
	placed := map[string]string{}
	for _, c := range s.Canary {
		placed[c] = "canary"
	}
	for w, wave := range s.Waves {
		field := fmt.Sprintf("waves[%d]", w)
		if len(wave) == 0 {
			e.Add(field, "", "an empty wave")
		}
		inFleet(field, wave)
		for i, c := range wave {
			if where, ok := placed[c]; ok {
				e.Addf(fmt.Sprintf("%s[%d]", field, i), c, "already in %s: a site goes once", where)
			}
			placed[c] = field
		}
	}
	if len(s.Waves) > 0 {
		for _, c := range s.Clusters {
			if _, ok := placed[c]; !ok && seen[c] {
				e.Add("waves", c, "a cluster of the fleet in no wave")
			}
		}
	}
	if s.BakeMinutes < 0 || s.BakeMinutes > MaxBakeMinutes {
		e.Addf("bakeMinutes", fmt.Sprint(s.BakeMinutes), "from 0 to %d (a week)", MaxBakeMinutes)
	}
	return e.Err()
}

// Plan is the waves of a checked spec: the canary alone, then the other
// sites in the order of Clusters, WaveSize at a time, or as Waves names
// them; each but the last bakes BakeMinutes.
func Plan(s Spec) []Wave {
	var waves []Wave
	if len(s.Canary) > 0 {
		waves = append(waves, Wave{Sites: slices.Clone(s.Canary)})
	}
	if len(s.Waves) > 0 {
		for _, w := range s.Waves {
			waves = append(waves, Wave{Sites: slices.Clone(w)})
		}
	} else {
		var rest []string
		for _, c := range s.Clusters {
			if !slices.Contains(s.Canary, c) {
				rest = append(rest, c)
			}
		}
		for len(rest) > 0 {
			n := min(s.WaveSize, len(rest))
			waves = append(waves, Wave{Sites: rest[:n:n]})
			rest = rest[n:]
		}
	}
	for i := range waves {
		if i < len(waves)-1 {
			waves[i].BakeMinutes = s.BakeMinutes
		}
	}
	return waves
}

func known(registered []string) string {
	if len(registered) == 0 {
		return " (none is)"
	}
	return " (registered: " + strings.Join(registered, ", ") + ")"
}
