package redfish

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/lab/events"
)

// manualClock fires timers only when the test advances it, so the state
// machine is stepped deterministically.
type manualClock struct {
	mu     sync.Mutex
	now    time.Duration
	timers []*manualTimer
}

type manualTimer struct {
	c             *manualClock
	at            time.Duration
	f             func()
	stopped, done bool
}

func (c *manualClock) AfterFunc(d time.Duration, f func()) stopper {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &manualTimer{c: c, at: c.now + d, f: f}
	c.timers = append(c.timers, t)
	return t
}

func (t *manualTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := !t.stopped && !t.done
	t.stopped = true
	return was
}

func (c *manualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Unix(1_700_000_000, 0).Add(c.now)
}

// Advance moves time by d, firing due timers in order, including timers
// they schedule.
func (c *manualClock) Advance(d time.Duration) {
	c.mu.Lock()
	target := c.now + d
	c.mu.Unlock()
	for {
		c.mu.Lock()
		var next *manualTimer
		for _, t := range c.timers {
			if !t.stopped && !t.done && t.at <= target && (next == nil || t.at < next.at) {
				next = t
			}
		}
		if next == nil {
			c.now = target
			c.mu.Unlock()
			return
		}
		next.done = true
		c.now = next.at
		c.mu.Unlock()
		next.f()
	}
}

var testTimings = Timings{PowerTransition: 10 * time.Second, Boot: 30 * time.Second, Reimage: 5 * time.Minute}

type rig struct {
	t   *testing.T
	b   *BMC
	clk *manualClock
	log *events.Log

	mu      sync.Mutex
	changes []State
}

func newRig(t *testing.T, mutate ...func(*Config)) *rig {
	t.Helper()
	r := &rig{t: t, clk: &manualClock{}, log: events.New(nil)}
	mutate = append([]func(*Config){func(c *Config) { c.Profile = "helpful" }}, mutate...)
	cfg := Config{
		BMM: "rack1-c1", Rack: "rack1", Username: "root", Password: testPassword,
		RuntimeVersion: "4.1.2", SerialNumber: "SN-0101", BootMAC: "52:54:00:00:01:01",
		Timings: testTimings, Events: r.log,
		OnChange: func(s State) {
			r.mu.Lock()
			r.changes = append(r.changes, s)
			r.mu.Unlock()
		},
	}
	for _, m := range mutate {
		m(&cfg)
	}
	r.b = newWithClock(cfg, r.clk)
	t.Cleanup(r.b.Close)
	return r
}

type reply struct {
	code   int
	header http.Header
	body   map[string]any
}

// request is a test request whose body is body as JSON (nil: none).
func request(method, path string, body any) *http.Request {
	var buf bytes.Buffer
	if body != nil {
		json.NewEncoder(&buf).Encode(body)
	}
	return httptest.NewRequest(method, path, &buf)
}

// serve runs req through the BMC's handler.
func (r *rig) serve(req *http.Request) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	r.b.Handler().ServeHTTP(rec, req)
	return rec
}

// do sends a request through the handler with basic auth unless auth is
// given explicitly ("" = none, anything else = X-Auth-Token).
func (r *rig) do(method, path string, body any, auth ...string) reply {
	r.t.Helper()
	req := request(method, path, body)
	switch {
	case len(auth) == 0:
		req.SetBasicAuth("root", testPassword)
	case auth[0] != "":
		req.Header.Set("X-Auth-Token", auth[0])
	}
	rec := r.serve(req)
	rep := reply{code: rec.Code, header: rec.Header()}
	if rec.Body.Len() > 0 && rec.Header().Get("Content-Type") != "application/xml" {
		if err := json.Unmarshal(rec.Body.Bytes(), &rep.body); err != nil {
			r.t.Fatalf("%s %s: body is not JSON: %v: %s", method, path, err, rec.Body.String())
		}
	}
	return rep
}

// doH authenticates with basic auth and adds headers (name, value, ...).
func (r *rig) doH(method, path string, body any, headers ...string) reply {
	r.t.Helper()
	req := request(method, path, body)
	req.SetBasicAuth("root", testPassword)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	rec := r.serve(req)
	rep := reply{code: rec.Code, header: rec.Header()}
	if rec.Body.Len() > 0 {
		json.Unmarshal(rec.Body.Bytes(), &rep.body)
	}
	return rep
}

func (r *rig) reset(rt string) reply {
	r.t.Helper()
	return r.do(http.MethodPost, r.b.paths.reset, map[string]any{"ResetType": rt})
}

func (r *rig) system() map[string]any {
	r.t.Helper()
	rep := r.do(http.MethodGet, r.b.paths.system, nil)
	if rep.code != http.StatusOK {
		r.t.Fatalf("GET system: %d %v", rep.code, rep.body)
	}
	return rep.body
}

func (r *rig) taskState(location string) (int, string) {
	r.t.Helper()
	rep := r.do(http.MethodGet, location, nil)
	s, _ := rep.body["TaskState"].(string)
	return rep.code, s
}

func (r *rig) count(kind string) int { return r.log.Count(kind, "rack1-c1") }

func field(m map[string]any, path ...string) any {
	var v any = m
	for _, p := range path {
		mm, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = mm[p]
	}
	return v
}

// testPassword is made per run: no credential lives in the code, and a
// password that leaks into a message is easy to search for.
var testPassword = func() string {
	b := make([]byte, 12)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return "pw-" + hex.EncodeToString(b)
}()
