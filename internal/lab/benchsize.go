package lab

import "os"

// SmallBenchEnv, set to 1, runs every benchmark at its smallest size: make
// test runs them once that way, so a benchmark that no longer runs fails the
// suite instead of waiting for make bench to notice.
const SmallBenchEnv = "RACKROLL_BENCH_SMALL"

// SmallBench reports whether benchmarks run at their smallest size.
func SmallBench() bool { return os.Getenv(SmallBenchEnv) == "1" }

// BenchSize is full, or small when SmallBenchEnv is set.
func BenchSize(full, small int) int {
	if SmallBench() {
		return small
	}
	return full
}
