package reliability

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"testing"
	"text/tabwriter"
	"time"
)

// seed drives every random choice (kill moments); printed so a failing run
// can be replayed with RACKROLL_RELIABILITY_SEED.
var seed = func() uint64 {
	if s := os.Getenv("RACKROLL_RELIABILITY_SEED"); s != "" {
		if v, err := strconv.ParseUint(s, 10, 64); err == nil {
			return v
		}
	}
	return uint64(time.Now().UnixNano())
}()

func TestMain(m *testing.M) {
	mode := "reduced"
	if full {
		mode = "full"
	}
	fmt.Printf("reliability: size=%s seed=%d (RACKROLL_RELIABILITY_SEED=%d replays the kill moments)\n", mode, seed, seed)
	code := m.Run()
	table.print()
	commands.Remove()
	os.Exit(code)
}

// rngFor gives each test its own stream, so the kill moments of one test do
// not depend on which tests ran before it.
func rngFor(t *testing.T) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(t.Name()))
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}

// row is one line of the figures table.
type row struct{ scenario, goal, result, ok string }

type figures struct {
	mu   sync.Mutex
	rows []row
}

var table figures

// check records a figure and fails the test when it misses its goal. Goals
// are counts and booleans, never durations: the machine is shared.
func check(t *testing.T, scenario, goal, result string, ok bool) {
	t.Helper()
	mark := "ok"
	if !ok {
		mark = "FAIL"
		t.Errorf("%s: want %s, got %s", scenario, goal, result)
	}
	table.mu.Lock()
	table.rows = append(table.rows, row{scenario, goal, result, mark})
	table.mu.Unlock()
}

// checkBool records a yes/no figure whose goal is "yes".
func checkBool(t *testing.T, scenario string, got bool) {
	t.Helper()
	check(t, scenario, "yes", yesNo(got), got)
}

// info records a figure that is reported, not asserted (a duration, say).
func (f *figures) info(scenario, goal, result string) {
	f.mu.Lock()
	f.rows = append(f.rows, row{scenario, goal, result, "info"})
	f.mu.Unlock()
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func (f *figures) print() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.rows) == 0 {
		return
	}
	fmt.Println()
	fmt.Println("reliability figures (seed", seed, ")")
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "scenario\tgoal\tresult\t")
	fmt.Fprintln(w, "--------\t----\t------\t")
	for _, r := range f.rows {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", r.scenario, r.goal, r.result, r.ok)
	}
	w.Flush()
}
