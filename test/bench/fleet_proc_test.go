package bench_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// procUsage is what /proc says of a process: CPU-seconds (user + system,
// its own and its reaped children's) and its peak resident set.
type procUsage struct {
	cpu    float64 // seconds
	hwmKiB int
}

// clockTicks is USER_HZ, 100 on every Linux the project runs on.
const clockTicks = 100

// readProc reads /proc/<pid>/stat and status; zero when it is gone.
func readProc(pid int) procUsage {
	var u procUsage
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return u
	}
	// The command name may hold spaces: the fields start after its ")".
	s := string(stat)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	// f[0] is field 3 (state): utime, stime, cutime, cstime are 14–17.
	for _, i := range []int{14, 15, 16, 17} {
		if v, err := strconv.ParseFloat(f[i-3], 64); err == nil {
			u.cpu += v / clockTicks
		}
	}
	status, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	for _, l := range strings.Split(string(status), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
			u.hwmKiB, _ = strconv.Atoi(f[1])
		}
	}
	return u
}

// readTree is pid's usage with every live descendant's CPU added (a
// PostgreSQL postmaster and its backends); the peak is the largest one's.
func readTree(pid int) procUsage {
	children := map[int][]int{}
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		p, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", d.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(stat)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) > 1 {
			ppid, _ := strconv.Atoi(f[1])
			children[ppid] = append(children[ppid], p)
		}
	}
	var total procUsage
	var walk func(int)
	walk = func(p int) {
		u := readProc(p)
		total.cpu += u.cpu
		total.hwmKiB = max(total.hwmKiB, u.hwmKiB)
		for _, c := range children[p] {
			walk(c)
		}
	}
	walk(pid)
	return total
}
