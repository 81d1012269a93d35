package keysettest_test

import (
	"testing"

	"github.com/rackroll/rackroll/internal/keyset"
	"github.com/rackroll/rackroll/internal/keyset/keysettest"
)

// The lines are keys the parser takes, one per seed, with the comment given.
func TestLinesAreKeys(t *testing.T) {
	a, b := keysettest.Line(1, "alice"), keysettest.Line(2, "bob")
	for _, line := range []string{a, b} {
		k, err := keyset.ParsePublicKey(line)
		if err != nil || k.Type != "ssh-ed25519" || k.Bits != 256 {
			t.Fatalf("%q: %+v, %v", line, k, err)
		}
	}
	if a == b || a != keysettest.Line(1, "alice") {
		t.Fatalf("one key per seed: %q, %q", a, b)
	}
	if _, line := keysettest.New(make([]byte, 32), "x@test"); line[len(line)-7:] != " x@test" {
		t.Fatalf("comment lost: %q", line)
	}
}
