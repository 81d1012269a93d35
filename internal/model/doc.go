// Package model is rackroll's domain: roles, runtime versions, update
// strategies, the site inventory (parsing and validation) and the ledger types
// workflows keep. It is pure Go so that workflows and the CLI can share it.
package model
