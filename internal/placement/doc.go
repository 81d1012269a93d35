// Package plan makes rackroll's decisions that need no I/O: where the KCPs
// and spare go, management groups, failure-domain balancing and the choice
// of a new spare. Workflows call these pure functions.
package placement
