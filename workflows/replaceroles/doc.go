// Package replaceroles is ReplaceRolesWorkflow (replace-roles:<cluster>):
// it moves control-plane roles to the placement table, one role change at
// a time, through kernel's gate, membership, provision and retire steps.
package replaceroles
