package kubesim

import (
	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/lab/faults"
)

// slowDrainFactor is how much longer terminating pods linger under faults.SlowDrain.
const slowDrainFactor = 10

// SetFault turns fault kind on or off for BMM bmm and emits a "fault"
// event. Unknown machines and kinds the node does not play (the BMC's) are
// ignored.
func (s *Sim) SetFault(bmm string, kind faults.Kind, on bool) {
	if kind.Target() != faults.Node {
		return
	}
	s.mu.Lock()
	m, ok := s.machines[bmm]
	if !ok {
		s.mu.Unlock()
		return
	}
	changed := m.faults[kind] != on
	m.faults[kind] = on
	node, rack := m.NodeName, m.Rack
	s.mu.Unlock()
	if !changed {
		return
	}
	s.sink.Emit(events.Fault, bmm, rack, map[string]any{"kind": string(kind), "on": on, "node": node})
	s.nodeQ.Add(node)
	switch kind {
	case faults.PDBBlocks:
		s.enqueuePDBsOnNode(node)
	case faults.SlowDrain:
		s.enqueueTerminatingOnNode(node)
	}
}
