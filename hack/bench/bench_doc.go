package main

import (
	"fmt"
	"os"
	"strings"
)

// The part of docs/performance.md that make bench writes.
const (
	benchBegin = "<!-- bench: written by make bench, do not edit -->"
	benchEnd   = "<!-- /bench -->"
)

// markdown is the benchmarks' table as docs/performance.md shows it: every
// figure with its goal, whether it was met and the run it comes from.
func (res Results) markdown() string {
	var b strings.Builder
	m := res.Machine
	fmt.Fprintf(&b, "Written by `make bench` on %s, commit %s — %d CPU %s, %s, %s.\n\n",
		res.Date[:10], res.Commit, m.NProc, m.CPUModel, m.MemTotal, m.GoVersion)
	b.WriteString("| figure | goal | result | met | source |\n|---|---|---|---|---|\n")
	for _, f := range res.Figures {
		name := strings.TrimLeft(f.Name, " ")
		indent := strings.Repeat("&nbsp;&nbsp;", (len(f.Name)-len(name))/2)
		fmt.Fprintf(&b, "| %s%s | %s | %s | %s | %s |\n", indent, name, f.Goal, f.result(), f.met("yes", "**no**"), f.Source)
	}
	return b.String()
}

// writeBlock replaces what lies between begin and end in path, or appends
// a section titled heading holding it.
func writeBlock(path, begin, end, heading, content string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	doc := string(data)
	block := begin + "\n" + content + end
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i >= 0 && j > i {
		doc = doc[:i] + block + doc[j+len(end):]
	} else {
		doc = strings.TrimRight(doc, "\n") + "\n\n## " + heading + "\n\n" + block + "\n"
	}
	return os.WriteFile(path, []byte(doc), 0o644)
}
