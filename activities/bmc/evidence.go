package bmc

import (
	"fmt"
	"net/http"
	"time"

	"github.com/rackroll/rackroll/activities/bmc/bmcclient"
)

// The evidence rule (docs/evidence.md): an effect is reported only when it
// was seen — a task that completed, the state read back, or in band by the
// caller. A BMC's 2xx only starts a bounded wait for that evidence.

// accepted is the answer of a request that returned no status of its own.
func accepted(task string) bmcclient.Accepted {
	if task != "" {
		return bmcclient.Accepted{Status: http.StatusAccepted, Task: task}
	}
	return bmcclient.Accepted{Status: http.StatusNoContent}
}

// PowerResult is what a power action did and what showed it.
type PowerResult struct {
	ResetType string // the reset sent; "" when the machine already was where asked
	Answer    string // the BMC's answer to it, e.g. "204" or "202, task /redfish/v1/TaskService/Tasks/7"
	Evidence  string // what showed the effect, e.g. "PowerState PoweringOff"; "" when Unconfirmed
	// Unconfirmed: the BMC accepted the reset but showed no change within
	// ResetEvidenceTimeout. Only the node's new boot can prove it; the
	// caller waits for one and fails with Detail when none comes.
	Unconfirmed bool
	Detail      string // for Unconfirmed: "accepted ForceRestart (204) but showed no change within 1m0s: PowerState On, ..."
	LastState   string // the System as last read
}

// cycleEvidence names what in now shows a restart sent when the System
// looked like before, "" when nothing does. PowerState On alone proves
// nothing: a BMC shows On before its reset takes effect, and forever when
// it ignores it.
func cycleEvidence(before, now bmcclient.System, taskDone bool) string {
	switch {
	case taskDone:
		return "the reset's task completed"
	case now.PowerState != "" && now.PowerState != "On":
		return "PowerState " + now.PowerState
	case now.State == "Starting":
		return "Status.State Starting"
	case before.BootProgress != "" && now.BootProgress != "" && now.BootProgress != before.BootProgress:
		return "BootProgress " + before.BootProgress + " → " + now.BootProgress
	}
	return ""
}

// noChange says what was asked, the answer and what the BMC shows now.
func noChange(asked string, ans bmcclient.Accepted, within time.Duration, now bmcclient.System) string {
	if within >= time.Second {
		within = within.Round(time.Second)
	}
	return fmt.Sprintf("accepted %s (%s) but showed no change within %s: %s", asked, ans, within, describeState(now))
}
