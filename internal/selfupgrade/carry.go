package selfupgrade

import "fmt"

// CarryHeader versions the state a long run carries across
// continue-as-new, which another build may read: the new one when the run
// moves, an older one after a rollback. Formats change by adding fields
// whose zero value means the old behaviour; MinReader rises only when a
// field cannot be ignored by a build that does not know it.
type CarryHeader struct {
	// Schema is the carry's format. 0 is a carry written before the header
	// existed, read as 1.
	Schema int `json:"schema,omitempty"`
	// MinReader is the oldest format whose readers use this carry
	// correctly. 0 is read as 1.
	MinReader int `json:"minReader,omitempty"`
}

// CheckCarry says whether a build that reads carry formats up to reads can
// take over a run of workflowType from c. An error is meant to fail the
// workflow task, not the run: the run waits, visibly, until a build that
// reads it is current (its first task never completed, so it still goes to
// the current version).
func CheckCarry(workflowType string, c CarryHeader, reads int) error {
	schema, minReader := max(c.Schema, 1), max(c.MinReader, 1)
	switch {
	case reads < 1:
		return fmt.Errorf("%s: this build reads carry formats up to %d: must be at least 1", workflowType, reads)
	case minReader > schema:
		return fmt.Errorf("%s: carried state is malformed: minReader %d is above its schema %d", workflowType, minReader, schema)
	case minReader > reads:
		return fmt.Errorf("%s: the carried state (schema %d) needs a build that reads carry format %d or later; this build reads up to %d: make a newer rackroll build current (docs/self-upgrade.md#moving-at-a-safe-point)",
			workflowType, schema, minReader, reads)
	}
	return nil
}
