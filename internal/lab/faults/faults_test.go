package faults

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestTable(t *testing.T) {
	assert.Len(t, All(), 12)
	assert.Equal(t, BMC, StaleETag.Target(), "stale-etag is a fault kind, played by the BMC")
	assert.Equal(t, Node, SlowDrain.Target())
	assert.False(t, Kind("melts").Known())
	assert.Equal(t, "bmc-5xx, bmc-timeout, stale-etag", Join(Rated()))
	for _, k := range All() {
		assert.True(t, k.Known(), k)
	}
}
