package selfupgrade

import (
	"cmp"
	"fmt"
)

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
	// Writer is the build that wrote it ("" unversioned or before the
	// header), for the error that names both builds.
	Writer string `json:"writer,omitempty"`
}

// CarryFormat is the newest carry format this build writes and reads.
// Raise it with a field that changes how a carry is read; a carry that an
// older build would misread says so by its MinReader. Format 2: an
// upgrade moved during its wait between racks (api.UpgradeCarry
// WaitUntil), which a format-1 build would skip with the pause after it.
// Format 3: the ledger's input packed (api.ClusterInput Packed), which an
// older build would take for an empty inventory. Format 4: an upgrade
// moved while paused on the operator's word (api.UpgradeCarry
// PauseMessage at a rack its strategy does not pause after), which an
// older build would go on from without that word.
const CarryFormat = 4

// FormatPackedLedger is the MinReader of a packed ledger input.
const FormatPackedLedger = 3

// FormatOperatorPause is the MinReader of an upgrade moved while paused
// on the operator's word.
const FormatOperatorPause = 4

// Written is the header of a carry build writes now.
func Written(build string) CarryHeader {
	return CarryHeader{Schema: CarryFormat, MinReader: 1, Writer: build}
}

// CheckCarry says whether build reader, which reads carry formats up to
// reads, can take over a run of workflowType from c. An error is meant to
// fail the workflow task, not the run: the run waits, visibly, until a
// build that reads it is current (its first task never completed, so it
// still goes to the current version).
func CheckCarry(workflowType string, c CarryHeader, reads int, reader string) error {
	schema, minReader := max(c.Schema, 1), max(c.MinReader, 1)
	switch {
	case reads < 1:
		return fmt.Errorf("%s: this build reads carry formats up to %d: must be at least 1", workflowType, reads)
	case minReader > schema:
		return fmt.Errorf("%s: carried state is malformed: minReader %d is above its schema %d", workflowType, minReader, schema)
	case minReader > reads:
		return fmt.Errorf("%s: the carried state was written by build %s (schema %d) and needs a build that reads carry format %d or later; this build %s reads up to %d: make build %s (or a later one) current again (docs/self-upgrade-moves.md#moving-at-a-safe-point)",
			workflowType, cmp.Or(c.Writer, "(unnamed)"), schema, minReader, cmp.Or(reader, "(unversioned)"), reads, cmp.Or(c.Writer, "that wrote it"))
	}
	return nil
}
