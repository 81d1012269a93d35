//go:build reliability_full

package reliability

// full: `make reliability` builds the package with -tags reliability_full
// for the full size; the caller's environment never changes the size.
const full = true
