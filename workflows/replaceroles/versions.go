package replaceroles

// The change IDs of ReplaceRolesWorkflow. A change to the commands
// it issues gets a constant here (oldest first, the date it was introduced
// and why), used by name at its workflow.GetVersion site;
// workflows/versions_test.go checks the list and the budget
// (docs/design.md#change-ids).

const (
	// changeRemovalQuorum (2026-11-29): the lease of a KCP a change takes out of the member set (a demotion, a retire)
	// is gated on the quorum of the members that stay, not as a disruption of the whole set: a one-rack site's
	// three KCPs can become a two-rack site's one.
	changeRemovalQuorum = "removal-quorum"
)
