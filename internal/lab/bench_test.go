package lab

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/model"
)

// BenchmarkLabUpFourRack: `starter lab up` for examples/four-rack.yaml, from
// nothing to every node Ready and every BMC answering (goal < 15 s).
func BenchmarkLabUpFourRack(b *testing.B) {
	inv, err := model.LoadInventory("../../examples/four-rack.yaml")
	if err != nil {
		b.Fatal(err)
	}
	benchLabUp(b, inv)
}

// BenchmarkLabUp64Racks: a 64-rack site of 1,024 BMMs on this machine; it
// reports the start time and the heap the lab holds (2 × 2 when small).
func BenchmarkLabUp64Racks(b *testing.B) {
	benchLabUp(b, SyntheticInventory("scale", BenchSize(64, 2), 2, BenchSize(14, 2)))
}

func benchLabUp(b *testing.B, inv *model.Inventory) {
	for i := 0; i < b.N; i++ {
		start := time.Now()
		l, err := Start(context.Background(), Options{Inventory: inv, Timings: fastTimings()})
		if err != nil {
			b.Fatal(err)
		}
		if err := l.Sim.WaitSettled(context.Background()); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(time.Since(start).Seconds(), "s-ready")
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "MiB-heap")
		b.ReportMetric(float64(len(l.Machines())), "bmms")
		l.Stop()
	}
}
