// Package keysets holds KeysetWorkflow: a BMC keyset applied to every BMC
// of its cluster, or its accounts disabled once it is deleted; or, as the
// cluster's nodes run, every BMM keyset applied to every node through a
// keyset pod each; with each BMM's outcome recorded in the ledger
// (docs/keysets.md, docs/keysets-nodes.md).
package keysets
