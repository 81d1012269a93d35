package replaceroles

// The change IDs of ReplaceRolesWorkflow: none yet. A change to the commands
// it issues gets a constant here (oldest first, the date it was introduced
// and why), used by name at its workflow.GetVersion site;
// workflows/versions_test.go checks the list and the budget
// (docs/design.md#change-ids).
