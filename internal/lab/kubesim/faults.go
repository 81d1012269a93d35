package kubesim

import (
	"github.com/rackroll/rackroll/internal/lab/events"
)

// Fault kinds the simulator injects (DESIGN.md, "Lab fault kinds"); the
// BMC emulator handles the others.
const (
	// FaultNodeNotReady: the kubelet reports Ready=False while set.
	FaultNodeNotReady = "node-not-ready"
	// FaultReadOnlyRootFS: condition ReadOnlyRootFilesystem=True.
	FaultReadOnlyRootFS = "readonly-rootfs"
	// FaultNodeUnknown: heartbeats stop and the node goes Ready=Unknown.
	FaultNodeUnknown = "node-unknown"
	// FaultPDBBlocks: every PDB covering a pod on the node allows no disruption.
	FaultPDBBlocks = "pdb-blocks"
	// FaultSlowDrain: evicted pods on the node take slowDrainFactor× longer to go.
	FaultSlowDrain = "slow-drain"
)

// slowDrainFactor is how much longer terminating pods linger under slow-drain.
const slowDrainFactor = 10

// IsFault reports whether kind is one the simulator handles.
func IsFault(kind string) bool {
	switch kind {
	case FaultNodeNotReady, FaultReadOnlyRootFS, FaultNodeUnknown, FaultPDBBlocks, FaultSlowDrain:
		return true
	}
	return false
}

// SetFault turns fault kind on or off for BMM bmm and emits a "fault"
// event. Unknown machines and kinds other than the simulator's are ignored.
func (s *Sim) SetFault(bmm, kind string, on bool) {
	if !IsFault(kind) {
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
	s.sink.Emit(events.Fault, bmm, rack, map[string]any{"kind": kind, "on": on, "node": node})
	s.nodeQ.Add(node)
	switch kind {
	case FaultPDBBlocks:
		s.enqueuePDBsOnNode(node)
	case FaultSlowDrain:
		s.enqueueTerminatingOnNode(node)
	}
}
