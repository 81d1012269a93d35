package api

import (
	"regexp"
	"strings"
	"time"
)

// The starter command lines a refusal names: an operator retries what the
// refusal asks by running the line, so it carries every flag they gave
// (docs/behaviour.md#actions). A reason is left as TEXT: it is written
// again for the new act, never echoed into a shell line.

// Command is the starter command that runs in.
func (in ActionInput) Command() string {
	c := command{"starter", "bmm", in.Action, "--cluster", in.Cluster, "--bmm", in.BMM}
	c.flag(in.SkipShutdown, "--skip-shutdown")
	c.flag(in.Evacuate, "--evacuate")
	p := in.ReplaceParams
	for _, f := range [][2]string{{"bmc-credentials", p.BMCCredentials}, {"bmc-mac-address", p.BMCMacAddress},
		{"boot-mac-address", p.BootMacAddress}, {"machine-name", p.MachineName}, {"serial-number", p.SerialNumber},
		{"storage-policy", p.StoragePolicy}, {"safeguard-mode", p.SafeguardMode}} {
		c.value(f[0], f[1])
	}
	c.flag(in.ApplyFirmware, "--apply-firmware")
	c.duration("evacuate-timeout", in.EvacuateTimeout)
	c.duration("time-limit", in.TimeLimit)
	c.flag(in.Force, "--force", "--reason", "TEXT")
	return c.String()
}

// Command is the starter command that runs the runbook with in.
func (in TroubleshootInput) Command() string {
	c := command{"starter", "bmm", "troubleshoot", "--cluster", in.Cluster, "--bmm", in.BMM, "--problem", in.Problem}
	c.duration("evacuate-timeout", in.EvacuateTimeout)
	c.flag(in.ApplyFirmware, "--apply-firmware")
	c.flag(in.Force, "--force", "--reason", "TEXT")
	return c.String()
}

type command []string

func (c *command) flag(on bool, words ...string) {
	if on {
		*c = append(*c, words...)
	}
}

func (c *command) value(name, v string) {
	if v != "" {
		*c = append(*c, "--"+name, shellWord(v))
	}
}

func (c *command) duration(name string, d time.Duration) {
	if d > 0 {
		c.value(name, d.String())
	}
}

func (c command) String() string { return strings.Join(c, " ") }

var plainWord = regexp.MustCompile(`^[A-Za-z0-9_./:@%+=,-]+$`)

// shellWord quotes a value a POSIX shell would split or expand (a serial
// number with a space, say).
func shellWord(s string) string {
	if plainWord.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
