// Package events is the lab's event log: one JSON object per change the lab
// observes, written as JSON Lines so safety checks can replay a run.
package events

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// Kinds the lab emits (docs/lab.md#the-event-log).
const (
	PowerOn       = "power-on"
	PowerOff      = "power-off"
	Reset         = "reset"
	BootOverride  = "boot-override"
	MediaInsert   = "media-insert"
	MediaEject    = "media-eject"
	ReimageStart  = "reimage-start"
	ReimageDone   = "reimage-done"
	ReimageFailed = "reimage-failed"
	BootSkipped   = "boot-skipped" // the firmware passed over a source it cannot boot (detail: target, mode, reason)
	Cordon        = "cordon"
	Uncordon      = "uncordon"
	Evict         = "evict"
	NodeReady     = "node-ready"
	NodeNotReady  = "node-not-ready"
	NodeUnknown   = "node-unknown"
	NodeLabel     = "node-label"
	NodeDeleted   = "node-deleted"
	Fault         = "fault"
	ImageRequest  = "image-request"  // the lab's image server answered a request (detail: method, path, status)
	SessionCreate = "session-create" // a BMC session was opened (login)
	SessionDelete = "session-delete" // closed: detail.reason is logout or timeout
	// SessionRefused: a login refused because the BMC held its limit of
	// sessions (detail.limit).
	SessionRefused = "session-refused"
	// Firmware (internal/lab/redfish firmware_update.go).
	FirmwareUpdate = "firmware-update" // an update was accepted (detail: kind, version, from, image, via, staged, task)
	FirmwareDone   = "firmware-done"   // a version became active (kind, from, to; reason when a fault kept the old one)
	FirmwareFailed = "firmware-failed" // an update ended in Exception (kind, version, reason)
	BMCReset       = "bmc-reset"       // the BMC rebooted after its own update (detail: away)
	// KeysetPod: the simulated kubelet ran a keyset pod on the node
	// (internal/lab/kubesim/keysets.go; detail: phase, users).
	KeysetPod = "keyset-pod"
	// Racked: a server of lab.unracked was racked (detail: bmc, profile);
	// its power-on, boot and Node registration follow.
	Racked = "racked"
)

// Registered is the detail key (true) of a node-label event that a
// kubelet's registration of a new Node caused, not a label patch: the role
// it shows is the kubelet's --node-labels, not one anyone assigned, so
// neither the lab's etcd nor the invariants take it for a role change.
const Registered = "registered"

// Event is one line of the log.
type Event struct {
	Time   time.Time      `json:"time"`
	Kind   string         `json:"kind"`
	BMM    string         `json:"bmm,omitempty"`
	Rack   string         `json:"rack,omitempty"`
	Detail map[string]any `json:"detail,omitempty"`
}

// MarshalJSON writes the time as RFC3339Nano in UTC.
func (e Event) MarshalJSON() ([]byte, error) {
	type alias Event
	return json.Marshal(struct {
		Time string `json:"time"`
		alias
	}{Time: e.Time.UTC().Format(time.RFC3339Nano), alias: alias(e)})
}

// Sink receives events. A nil *Log is a valid Sink that drops everything.
type Sink interface {
	Emit(kind, bmm, rack string, detail map[string]any)
}

// Log records events in memory and, when given a writer, as JSON Lines.
// It is safe for concurrent use.
type Log struct {
	mu     sync.Mutex
	w      *bufio.Writer
	closer io.Closer
	all    []Event
	subs   []chan Event
	now    func() time.Time
}

// New returns a Log writing to w (may be nil: memory only).
func New(w io.Writer) *Log {
	l := &Log{now: time.Now}
	if w != nil {
		l.w = bufio.NewWriter(w)
	}
	return l
}

// Open creates (truncates) path and returns a Log writing to it.
func Open(path string) (*Log, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("open event log %s: %w", path, err)
	}
	l := New(f)
	l.closer = f
	return l, nil
}

// Emit records one event. Lines are flushed at once so a crash of the lab
// loses nothing a test may read afterwards.
func (l *Log) Emit(kind, bmm, rack string, detail map[string]any) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	ev := Event{Time: l.now(), Kind: kind, BMM: bmm, Rack: rack, Detail: detail}
	l.all = append(l.all, ev)
	if l.w != nil {
		if b, err := json.Marshal(ev); err == nil {
			l.w.Write(b)
			l.w.WriteByte('\n')
			l.w.Flush()
		}
	}
	for _, c := range l.subs {
		select {
		case c <- ev:
		default: // a slow subscriber loses events rather than stalling the lab
		}
	}
}

// Events returns a copy of everything recorded so far.
func (l *Log) Events() []Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Event(nil), l.all...)
}

// Count returns how many events of kind were recorded for bmm ("" = any).
func (l *Log) Count(kind, bmm string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, e := range l.all {
		if e.Kind == kind && (bmm == "" || e.BMM == bmm) {
			n++
		}
	}
	return n
}

// Subscribe returns a channel that receives events emitted from now on.
func (l *Log) Subscribe(buffer int) <-chan Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	c := make(chan Event, buffer)
	l.subs = append(l.subs, c)
	return c
}

// Close flushes and closes the underlying file, if any.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.w != nil {
		l.w.Flush()
	}
	if l.closer != nil {
		return l.closer.Close()
	}
	return nil
}

// ReadFile parses a JSON Lines event log.
func ReadFile(path string) ([]Event, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Event
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		if len(sc.Bytes()) == 0 {
			continue
		}
		var raw struct {
			Time   string         `json:"time"`
			Kind   string         `json:"kind"`
			BMM    string         `json:"bmm"`
			Rack   string         `json:"rack"`
			Detail map[string]any `json:"detail"`
		}
		if err := json.Unmarshal(sc.Bytes(), &raw); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		t, err := time.Parse(time.RFC3339Nano, raw.Time)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: time %q: %w", path, line, raw.Time, err)
		}
		out = append(out, Event{Time: t, Kind: raw.Kind, BMM: raw.BMM, Rack: raw.Rack, Detail: raw.Detail})
	}
	return out, sc.Err()
}
