// Package replaceroles is ReplaceRolesWorkflow (replace-roles:<cluster>):
// it moves control-plane roles to the placement table, one role change at
// a time (replaceroles.go, steps.go), through kernel's gate,
// membership, provision and retire steps. versions.go lists its change IDs
// (none yet).
package replaceroles
