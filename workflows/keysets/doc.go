// Package keysets holds KeysetWorkflow: a BMC keyset applied to every BMC
// of its cluster, or its accounts disabled once it is deleted, with each
// BMM's outcome recorded in the ledger (docs/keysets.md).
package keysets
