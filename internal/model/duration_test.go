package model

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDurationJSON(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		text string
	}{
		{10 * time.Minute, `"10m"`},
		{3 * time.Second, `"3s"`},
		{6 * time.Hour, `"6h"`},
		{90 * time.Minute, `"1h30m"`},
		{90 * time.Second, `"1m30s"`},
		{1500 * time.Millisecond, `"1.5s"`},
		{0, `"0s"`},
	} {
		b, err := json.Marshal(Duration(tc.d))
		require.NoError(t, err)
		assert.Equal(t, tc.text, string(b))
		var back Duration
		require.NoError(t, json.Unmarshal(b, &back))
		assert.Equal(t, tc.d, back.Std())
	}
}

func TestDurationRefuses(t *testing.T) {
	for _, in := range []string{`"ten minutes"`, `600`, `"10"`, `true`} {
		var d Duration
		err := json.Unmarshal([]byte(in), &d)
		require.Error(t, err, in)
		assert.Contains(t, err.Error(), "want a duration such as 10m")
	}
}

func TestRemediationDefaults(t *testing.T) {
	var nilSpec *RemediationSpec
	want := RemediationSpec{
		Interval: Duration(time.Minute), ProvisioningTimeout: Duration(6 * time.Hour),
		ReadOnlyRootFilesystemFor: Duration(10 * time.Minute), NodeUnknownFor: Duration(30 * time.Minute),
		RebootTimeout: Duration(40 * time.Minute), ReprovisionTimeout: Duration(3 * time.Hour),
		MaxConcurrentCompute: 5, DampingWindow: Duration(24 * time.Hour),
	}
	assert.Equal(t, want, nilSpec.WithDefaults())
	assert.Equal(t, want, (&RemediationSpec{}).WithDefaults())

	got := (&RemediationSpec{Interval: Duration(time.Second), MaxConcurrentCompute: 2}).WithDefaults()
	assert.Equal(t, time.Second, got.Interval.Std())
	assert.Equal(t, 2, got.MaxConcurrentCompute)
	assert.Equal(t, 6*time.Hour, got.ProvisioningTimeout.Std())
}
