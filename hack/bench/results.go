package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// Figure is one row of the table.
type Figure struct {
	Name   string   `json:"name"`
	Goal   string   `json:"goal"`
	Value  *float64 `json:"value,omitempty"`
	Unit   string   `json:"unit"`
	Met    *bool    `json:"met,omitempty"` // nil: no goal, or not measured
	Source string   `json:"source"`        // "run", "prev <date> <commit>", "recorded <date>", "not run"
	Note   string   `json:"note,omitempty"`
}

// Results is bench/results.json.
type Results struct {
	Date    string                        `json:"date"`
	Commit  string                        `json:"commit,omitempty"` // the benchmarks' checkout
	Machine Machine                       `json:"machine"`
	Figures []Figure                      `json:"figures"`
	Metrics map[string]map[string]float64 `json:"metrics"`         // benchmark → unit → value
	Sources map[string]string             `json:"sources"`         // benchmark → "run" or "prev <date> <commit>"
	Suite   *SuiteProfile                 `json:"suite,omitempty"` // make test-profile's, with its own date and commit
}

// Machine describes where the figures were taken.
type Machine struct {
	NProc     int    `json:"nproc"`
	MemTotal  string `json:"memTotal"`
	CPUModel  string `json:"cpuModel"`
	GoVersion string `json:"goVersion"`
	OS        string `json:"os"`
}

func readPrev(path string) *Results {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var r Results
	if json.Unmarshal(data, &r) != nil {
		return nil
	}
	return &r
}

// write writes res to path as indented JSON.
func write(path string, res Results) error {
	data, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

// commit names the checkout the figures were measured on: the short hash,
// with "+dirty" when the worktree has uncommitted changes.
func commit() string {
	out, err := exec.Command("git", "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	c := strings.TrimSpace(string(out))
	if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(bytes.TrimSpace(st)) > 0 {
		c += "+dirty"
	}
	return c
}

func machine() Machine {
	m := Machine{NProc: runtime.NumCPU(), OS: runtime.GOOS + "/" + runtime.GOARCH}
	if out, err := exec.Command("go", "env", "GOVERSION").Output(); err == nil {
		m.GoVersion = strings.TrimSpace(string(out))
	}
	if out, err := exec.Command("nproc").Output(); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(out))); err == nil {
			m.NProc = n
		}
	}
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPUModel = strings.TrimSpace(v)
				break
			}
		}
	}
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, l := range strings.Split(string(data), "\n") {
			if f := strings.Fields(l); len(f) >= 2 && f[0] == "MemTotal:" {
				if kb, err := strconv.Atoi(f[1]); err == nil {
					m.MemTotal = fmt.Sprintf("%.1f GiB", float64(kb)/(1<<20))
				}
			}
		}
	}
	return m
}
