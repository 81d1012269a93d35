package kubesim

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestThousandMachines checks the simulator copes with a large site: a
// thousand compute nodes with their tenant workloads (4,000 pods, 1,000
// PDBs) settle, and a whole rack's power-off is reflected. Durations are
// logged, not asserted.
func TestThousandMachines(t *testing.T) {
	const racks, perRack = 25, 40
	roles := make([]string, 0, racks*perRack)
	for range racks * perRack {
		roles = append(roles, "compute")
	}
	began := time.Now()
	s := startSite(t, Options{Workloads: true, Tick: 500 * time.Millisecond}, roles...)
	t.Logf("%d machines set up and settled in %v", len(roles), time.Since(began).Round(time.Millisecond))

	began = time.Now()
	ms := s.Machines()
	for _, m := range ms[:perRack] {
		s.SetMachineState(m.Name, MachineState{Powered: false})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := s.WaitSettled(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("rack power-off settled in %v", time.Since(began).Round(time.Millisecond))
	nodes, err := s.client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	unknown := 0
	for _, n := range nodes.Items {
		if readyStatus(&n) == corev1.ConditionUnknown && s.ours(n.Name) {
			unknown++
		}
	}
	if unknown != perRack {
		t.Fatalf("%d nodes Unknown, want %d", unknown, perRack)
	}
}
