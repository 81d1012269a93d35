package faults

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Moved from internal/model (TestFaultKinds); reset-ignored and
// media-unmountable make fourteen, media-wrong-image fifteen, the three
// firmware faults eighteen, the two of keyset pods twenty, a BMC whose
// update resets its accounts twenty-one.
func TestFaultKinds(t *testing.T) {
	assert.Len(t, All(), 21)
	assert.True(t, Kind("slow-drain").Known())
	assert.False(t, Kind("melt").Known())
}

func TestTable(t *testing.T) {
	assert.Equal(t, BMC, StaleETag.Target(), "stale-etag is a fault kind, played by the BMC")
	assert.Equal(t, Node, SlowDrain.Target())
	assert.Equal(t, Target(0), Kind("melt").Target())
	assert.Equal(t, "bmc-5xx, bmc-timeout, stale-etag", Join(Rated()))
	for _, k := range All() {
		assert.True(t, k.Known(), k)
	}
}
