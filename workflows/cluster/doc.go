// Package cluster is ClusterWorkflow (cluster:<cluster>), the ledger: the
// single writer of what rackroll knows of a site and of its disruption
// leases. cluster.go holds the loop, the Updates and continue-as-new;
// breakglass.go resume and lease release; remediation.go
// the remediation facts of a patch and the mark kept as state;
// replan.go the registration of a changed inventory;
// keysets.go the access keysets (docs/keysets.md). The other
// workflows talk to it through kernel's ledger client; versions.go lists
// its change IDs.
package cluster
