package redfish

// notice is one change to report: events for the log and, when State
// changed, the new State for OnChange.
type notice struct {
	events  []pendingEvent
	state   State
	changed bool
}

type pendingEvent struct {
	kind   string
	detail map[string]any
}

// emitLocked queues an event; it is delivered by flush after the lock is
// released, so sinks and OnChange may call back into the BMC.
func (b *BMC) emitLocked(kind string, detail map[string]any) {
	b.queue = append(b.queue, notice{events: []pendingEvent{{kind, detail}}})
}

// changedLocked queues an OnChange call if State differs from the last one
// queued.
func (b *BMC) changedLocked() {
	s := b.snapshotLocked()
	if s == b.last {
		return
	}
	b.last = s
	b.queue = append(b.queue, notice{state: s, changed: true})
}

// flush delivers queued notices in order. Only one goroutine drains at a
// time, which keeps the event log in the order the changes happened; a
// callback that changes the BMC again just queues more for the drainer.
func (b *BMC) flush() {
	b.mu.Lock()
	if b.draining {
		b.mu.Unlock()
		return
	}
	b.draining = true
	for len(b.queue) > 0 {
		n := b.queue[0]
		b.queue = b.queue[1:]
		b.mu.Unlock()
		b.deliver(n)
		b.mu.Lock()
	}
	b.draining = false
	b.mu.Unlock()
}

func (b *BMC) deliver(n notice) {
	if b.cfg.Events != nil {
		for _, e := range n.events {
			b.cfg.Events.Emit(e.kind, b.cfg.BMM, b.cfg.Rack, e.detail)
		}
	}
	if n.changed && b.cfg.OnChange != nil {
		b.cfg.OnChange(n.state)
	}
}
