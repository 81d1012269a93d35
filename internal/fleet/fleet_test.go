package fleet

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func sites(n int) []string {
	var out []string
	for i := 1; i <= n; i++ {
		out = append(out, fmt.Sprintf("site-%02d", i))
	}
	return out
}

// Fifty sites, a canary of one, waves of ten, an hour's bake: six waves,
// the canary alone first, every site once, no bake after the last.
func TestPlanCanaryThenWavesOfASize(t *testing.T) {
	s := Spec{Name: "prod", Clusters: sites(50), Canary: []string{"site-07"}, WaveSize: 10, BakeMinutes: 60}
	if err := Check(s, sites(50)); err != nil {
		t.Fatal(err)
	}
	waves := Plan(s)
	if len(waves) != 6 || !reflect.DeepEqual(waves[0].Sites, []string{"site-07"}) || len(waves[5].Sites) != 9 {
		t.Fatalf("waves %v, want the canary then 10, 10, 10, 10, 9", waves)
	}
	seen := map[string]int{}
	for i, w := range waves {
		for _, c := range w.Sites {
			seen[c]++
		}
		if want := map[bool]int{true: 0, false: 60}[i == len(waves)-1]; w.BakeMinutes != want {
			t.Errorf("wave %d bakes %d min, want %d", i, w.BakeMinutes, want)
		}
	}
	if len(seen) != 50 {
		t.Errorf("%d sites planned, want 50", len(seen))
	}
	for c, n := range seen {
		if n != 1 {
			t.Errorf("%s in %d waves", c, n)
		}
	}
}

// Every problem of a spec at once, each naming its field and value.
func TestCheckNamesEveryProblem(t *testing.T) {
	s := Spec{Clusters: []string{"a", "b", "b", "zz"}, Canary: []string{"q"}, WaveSize: 2,
		Waves: [][]string{{"a"}, {}}, BakeMinutes: -1}
	err := Check(s, []string{"a", "b"})
	if err == nil {
		t.Fatal("a bad spec passed")
	}
	for _, want := range []string{"name", "clusters[2]", "listed twice", `clusters[3]`, "zz", "not a registered cluster",
		"canary[0]", "not among the fleet's clusters", "either waveSize or waves", "waves[1]", "an empty wave", "bakeMinutes"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	s = Spec{Name: "f", Clusters: []string{"a", "b", "c"}, Canary: []string{"a"}, Waves: [][]string{{"a", "b"}}}
	err = Check(s, []string{"a", "b", "c"})
	if err == nil || !strings.Contains(err.Error(), "already in canary") || !strings.Contains(err.Error(), "a cluster of the fleet in no wave") {
		t.Errorf("named waves: %v", err)
	}
}
