package model

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func intp(n int) *int { return &n }

func TestStrategyDefaults(t *testing.T) {
	d := UpdateStrategy{}.WithDefaults()
	assert.Equal(t, StrategyRack, d.StrategyType)
	assert.Equal(t, ThresholdPercentSuccess, d.ThresholdType)
	assert.Equal(t, 80, d.ThresholdValue)
	assert.Equal(t, 0, d.MaxUnavailable)
	require.NotNil(t, d.WaitTimeMinutes)
	assert.Equal(t, 15, *d.WaitTimeMinutes)
	assert.Equal(t, 15*time.Minute, UpdateStrategy{}.Wait())

	// Explicit values survive, including an explicit zero wait and threshold.
	s := UpdateStrategy{StrategyType: StrategyPauseAfterRack, ThresholdType: ThresholdCountSuccess,
		ThresholdValue: 0, MaxUnavailable: 2, WaitTimeMinutes: intp(0)}.WithDefaults()
	assert.Equal(t, StrategyPauseAfterRack, s.StrategyType)
	assert.Equal(t, 0, s.ThresholdValue)
	assert.Equal(t, 2, s.MaxUnavailable)
	assert.Equal(t, time.Duration(0), s.Wait())

	// A value without a type is a percentage.
	p := UpdateStrategy{ThresholdValue: 60}.WithDefaults()
	assert.Equal(t, ThresholdPercentSuccess, p.ThresholdType)
	assert.Equal(t, 60, p.ThresholdValue)
}

// The Temporal UI's details of an upgrade and `starter upgrade plan` say
// what the strategy does; maxUnavailable 0 is the whole rack.
func TestStrategyDescribe(t *testing.T) {
	assert.Equal(t, "strategy Rack, threshold PercentSuccess 80, maxUnavailable whole rack, wait 15m0s after each rack",
		UpdateStrategy{}.WithDefaults().Describe())
	assert.Equal(t, "strategy PauseAfterRack, threshold CountSuccess 6, maxUnavailable 2, wait 0s after each rack",
		UpdateStrategy{StrategyType: StrategyPauseAfterRack, ThresholdType: ThresholdCountSuccess, ThresholdValue: 6,
			MaxUnavailable: 2, WaitTimeMinutes: intp(0)}.Describe())
}

func TestStrategyValidate(t *testing.T) {
	for _, tc := range []struct {
		name       string
		s          UpdateStrategy
		field, msg string
	}{
		{"zero is fine", UpdateStrategy{}, "", ""},
		{"all set", UpdateStrategy{StrategyType: StrategyPauseAfterRack, ThresholdType: ThresholdCountSuccess, ThresholdValue: 500, MaxUnavailable: 3, WaitTimeMinutes: intp(60)}, "", ""},
		{"percent 100", UpdateStrategy{ThresholdType: ThresholdPercentSuccess, ThresholdValue: 100}, "", ""},
		{"percent 0", UpdateStrategy{ThresholdType: ThresholdPercentSuccess}, "", ""},
		{"wait 0", UpdateStrategy{WaitTimeMinutes: intp(0)}, "", ""},
		{"unknown strategy", UpdateStrategy{StrategyType: "Zone"}, "strategyType", "allowed values are Rack, PauseAfterRack"},
		{"unknown threshold", UpdateStrategy{ThresholdType: "Ratio"}, "thresholdType", "allowed values are CountSuccess, PercentSuccess"},
		{"negative threshold", UpdateStrategy{ThresholdType: ThresholdCountSuccess, ThresholdValue: -1}, "thresholdValue", "0 or more"},
		{"percent over 100", UpdateStrategy{ThresholdType: ThresholdPercentSuccess, ThresholdValue: 120}, "thresholdValue", "thresholdValue 120 is above 100 for PercentSuccess"},
		{"defaulted percent over 100", UpdateStrategy{ThresholdValue: 101}, "thresholdValue", "above 100"},
		{"negative maxUnavailable", UpdateStrategy{MaxUnavailable: -1}, "maxUnavailable", "0 for the whole rack"},
		{"wait over 60", UpdateStrategy{WaitTimeMinutes: intp(61)}, "waitTimeMinutes", "between 0 and 60"},
		{"negative wait", UpdateStrategy{WaitTimeMinutes: intp(-1)}, "waitTimeMinutes", "between 0 and 60"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.s.Validate()
			if tc.field == "" {
				assert.NoError(t, err)
				return
			}
			ps := problems(t, err)
			require.Len(t, ps, 1, err.Error())
			assert.Equal(t, tc.field, ps[0].Field)
			assert.Contains(t, ps[0].Message, tc.msg)
		})
	}
}

func TestStrategyValidateReportsAll(t *testing.T) {
	err := UpdateStrategy{StrategyType: "x", ThresholdType: "y", ThresholdValue: -5, MaxUnavailable: -1, WaitTimeMinutes: intp(99)}.Validate()
	assert.Len(t, problems(t, err), 5)
}

func TestRequired(t *testing.T) {
	pct := func(v int) UpdateStrategy {
		return UpdateStrategy{ThresholdType: ThresholdPercentSuccess, ThresholdValue: v}
	}
	for _, tc := range []struct {
		name string
		s    UpdateStrategy
		size int
		want int
	}{
		{"7 at 80%", pct(80), 7, 6},
		{"10 at 80%", pct(80), 10, 8},
		{"1 at 80%", pct(80), 1, 1},
		{"0 at 80%", pct(80), 0, 0},
		{"0%", pct(0), 8, 0},
		{"100%", pct(100), 8, 8},
		{"50% of 5", pct(50), 5, 3},
		{"default is 80%", UpdateStrategy{}, 7, 6},
		{"count", UpdateStrategy{ThresholdType: ThresholdCountSuccess, ThresholdValue: 4}, 8, 4},
		{"count equals size", UpdateStrategy{ThresholdType: ThresholdCountSuccess, ThresholdValue: 8}, 8, 8},
		{"count 0", UpdateStrategy{ThresholdType: ThresholdCountSuccess}, 8, 0},
	} {
		assert.Equal(t, tc.want, tc.s.Required(tc.size), tc.name)
	}
}

func TestParallel(t *testing.T) {
	assert.Equal(t, 8, UpdateStrategy{}.Parallel(8), "0 means the whole rack")
	assert.Equal(t, 2, UpdateStrategy{MaxUnavailable: 2}.Parallel(8))
	assert.Equal(t, 3, UpdateStrategy{MaxUnavailable: 5}.Parallel(3))
}

func TestCheckRacks(t *testing.T) {
	sizes := map[string]int{"rack10": 3, "rack2": 8, "rack9": 4, "rack1": 0}
	count := func(v int) UpdateStrategy {
		return UpdateStrategy{ThresholdType: ThresholdCountSuccess, ThresholdValue: v}
	}
	assert.NoError(t, count(3).CheckRacks(sizes))
	assert.NoError(t, UpdateStrategy{}.CheckRacks(sizes), "percentages always fit")
	assert.NoError(t, UpdateStrategy{ThresholdType: ThresholdPercentSuccess, ThresholdValue: 100}.CheckRacks(sizes))

	ps := problems(t, count(5).CheckRacks(sizes))
	require.Len(t, ps, 2)
	assert.Contains(t, ps[0].Message, "rack rack9 has only 4 compute servers")
	assert.Contains(t, ps[1].Message, "rack rack10 has only 3 compute servers")
	assert.Equal(t, "thresholdValue", ps[0].Field)
	assert.Equal(t, "5", ps[0].Value)
}

func TestStrategyJSON(t *testing.T) {
	var s UpdateStrategy
	require.NoError(t, json.Unmarshal([]byte(`{"strategyType":"PauseAfterRack","thresholdType":"CountSuccess","thresholdValue":3,"maxUnavailable":2,"waitTimeMinutes":0}`), &s))
	assert.Equal(t, UpdateStrategy{StrategyType: StrategyPauseAfterRack, ThresholdType: ThresholdCountSuccess,
		ThresholdValue: 3, MaxUnavailable: 2, WaitTimeMinutes: intp(0)}, s)
}
