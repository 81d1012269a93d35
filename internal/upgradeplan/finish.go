package upgradeplan

import (
	"fmt"
	"strings"
)

// LeftBehind lists the servers an upgrade failed, unit by unit (give it
// api.UpgradeStatus.Units): those an upgrade that ran to its end still
// owes. Running the same target again finishes them (Plan.Finishing).
func LeftBehind(units ...Unit) []string {
	var out []string
	for _, u := range units {
		out = append(out, u.FailedNames()...)
	}
	return out
}

// Completion is how an upgrade from one version to another that ran to its
// end (not cancelled) leaves the cluster: the version to record ("" keeps
// the old one: a cluster's version is what all its in-service servers
// run), whether the upgrade mark stays (so a re-run resumes and repairs
// install the target), and the message naming what was left behind.
func Completion(from, to string, left []string) (version string, keepMark bool, msg string) {
	if len(left) == 0 {
		return to, false, "Runtime upgrade to " + to + " completed"
	}
	return "", true, fmt.Sprintf("Runtime upgrade to %s completed except %s (failed; runtime mixed: %s and %s): start the upgrade to %s again to finish them",
		to, strings.Join(left, ", "), from, to, to)
}
