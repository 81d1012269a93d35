//go:build !reliability_full

package reliability

// full is false: go test ./... (and so make test) runs the reduced size.
const full = false
