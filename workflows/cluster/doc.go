// Package cluster is ClusterWorkflow (cluster:<cluster>), the ledger: the
// single writer of what rackroll knows of a site and of its disruption
// leases — registrations of a changed inventory, BMM records and health
// marks, break-glass, the access keysets (docs/keysets.md) — running as
// one long run that continues as new. The other workflows talk to it
// through kernel's ledger client.
package cluster
