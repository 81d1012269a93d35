package model

import (
	"fmt"
	"strconv"
	"time"
)

// UpdateStrategy controls how compute racks are upgraded. Field names follow
// the operator API.
type UpdateStrategy struct {
	StrategyType   string `json:"strategyType"`
	ThresholdType  string `json:"thresholdType"`
	ThresholdValue int    `json:"thresholdValue"`
	// MaxUnavailable is how many servers of a rack upgrade at once; 0 means
	// the whole rack.
	MaxUnavailable  int  `json:"maxUnavailable,omitempty"`
	WaitTimeMinutes *int `json:"waitTimeMinutes,omitempty"`
	// SystemicFailures is how many compute servers go first: when they all
	// fail at the same step the upgrade pauses (default 2, 0: off).
	SystemicFailures *int `json:"systemicFailures,omitempty"`
	// CapacityPolicy says what happens when a batch's evicted pods cannot
	// all land elsewhere: Warn (proceed, naming the pods left Pending) or
	// Pause (before the drain). Default Warn.
	CapacityPolicy string `json:"capacityPolicy,omitempty"`
}

// Strategy and threshold types.
const (
	StrategyRack            = "Rack"
	StrategyPauseAfterRack  = "PauseAfterRack"
	ThresholdCountSuccess   = "CountSuccess"
	ThresholdPercentSuccess = "PercentSuccess"
	CapacityWarn            = "Warn"
	CapacityPause           = "Pause"
)

// Operator defaults.
const (
	DefaultThresholdValue   = 80
	DefaultWaitTimeMinutes  = 15
	DefaultSystemicFailures = 2
	MaxWaitTimeMinutes      = 60
)

// WithDefaults fills unset fields with the operator defaults. The threshold
// value defaults to 80 only when the threshold type is unset too: with an
// explicit type, 0 is a legitimate value (no minimum).
func (s UpdateStrategy) WithDefaults() UpdateStrategy {
	if s.StrategyType == "" {
		s.StrategyType = StrategyRack
	}
	if s.ThresholdType == "" {
		s.ThresholdType = ThresholdPercentSuccess
		if s.ThresholdValue == 0 {
			s.ThresholdValue = DefaultThresholdValue
		}
	}
	if s.CapacityPolicy == "" {
		s.CapacityPolicy = CapacityWarn
	}
	if s.WaitTimeMinutes == nil {
		w := DefaultWaitTimeMinutes
		s.WaitTimeMinutes = &w
	}
	return s
}

// Validate reports every out-of-range or unknown field. Unset fields are fine:
// WithDefaults fills them.
func (s UpdateStrategy) Validate() error {
	var e ValidationError
	switch s.StrategyType {
	case "", StrategyRack, StrategyPauseAfterRack:
	default:
		e.Add("strategyType", s.StrategyType, "unknown strategy: allowed values are Rack, PauseAfterRack")
	}
	switch s.ThresholdType {
	case "", ThresholdCountSuccess, ThresholdPercentSuccess:
	default:
		e.Add("thresholdType", s.ThresholdType, "unknown threshold type: allowed values are CountSuccess, PercentSuccess")
	}
	v := strconv.Itoa(s.ThresholdValue)
	if s.ThresholdValue < 0 {
		e.Add("thresholdValue", v, "must be 0 or more")
	}
	if s.WithDefaults().ThresholdType == ThresholdPercentSuccess && s.ThresholdValue > 100 {
		e.Addf("thresholdValue", v, "thresholdValue %d is above 100 for PercentSuccess", s.ThresholdValue)
	}
	if s.MaxUnavailable < 0 {
		e.Add("maxUnavailable", strconv.Itoa(s.MaxUnavailable), "must be 1 or more, or 0 for the whole rack")
	}
	switch s.CapacityPolicy {
	case "", CapacityWarn, CapacityPause:
	default:
		e.Add("capacityPolicy", s.CapacityPolicy, "unknown capacity policy: allowed values are Warn, Pause")
	}
	if k := s.SystemicFailures; k != nil && *k < 0 {
		e.Add("systemicFailures", strconv.Itoa(*k), "must be 0 (no canary) or more (default 2)")
	}
	if w := s.WaitTimeMinutes; w != nil && (*w < 0 || *w > MaxWaitTimeMinutes) {
		e.Addf("waitTimeMinutes", strconv.Itoa(*w), "must be between 0 and %d", MaxWaitTimeMinutes)
	}
	return e.Err()
}

// Describe says what a resolved strategy does, for the plan and the
// upgrade's details in the Temporal UI.
func (s UpdateStrategy) Describe() string {
	at := "whole rack"
	if s.MaxUnavailable > 0 {
		at = strconv.Itoa(s.MaxUnavailable)
	}
	return fmt.Sprintf("strategy %s, threshold %s %d, maxUnavailable %s, wait %v after each rack",
		s.StrategyType, s.ThresholdType, s.ThresholdValue, at, s.Wait())
}

// Systemic is how many compute servers go first (SystemicFailures with
// its default).
func (s UpdateStrategy) Systemic() int {
	if s.SystemicFailures == nil {
		return DefaultSystemicFailures
	}
	return *s.SystemicFailures
}

// Wait is the pause after each rack.
func (s UpdateStrategy) Wait() time.Duration {
	return time.Duration(*s.WithDefaults().WaitTimeMinutes) * time.Minute
}

// Required is how many of a rack's rackSize compute servers must upgrade
// successfully. Percentages round up: 7 servers at 80 % need 6.
func (s UpdateStrategy) Required(rackSize int) int {
	s = s.WithDefaults()
	if s.ThresholdType == ThresholdCountSuccess {
		return s.ThresholdValue
	}
	return (s.ThresholdValue*rackSize + 99) / 100
}

// Parallel is how many of a rack's rackSize servers upgrade at once.
func (s UpdateStrategy) Parallel(rackSize int) int {
	if s.MaxUnavailable <= 0 || s.MaxUnavailable > rackSize {
		return rackSize
	}
	return s.MaxUnavailable
}

// CheckRacks refuses a CountSuccess threshold that a rack could never meet.
// sizes maps rack name to its compute-server count; racks without compute
// servers have nothing to upgrade in the compute phase and are skipped.
// s is resolved (upgradeplan.Build).
func (s UpdateStrategy) CheckRacks(sizes map[string]int) error {
	if s.ThresholdType != ThresholdCountSuccess {
		return nil
	}
	names := make([]string, 0, len(sizes))
	for n := range sizes {
		names = append(names, n)
	}
	SortNatural(names)
	var e ValidationError
	for _, n := range names {
		if size := sizes[n]; size > 0 && s.ThresholdValue > size {
			e.Addf("thresholdValue", strconv.Itoa(s.ThresholdValue),
				"rack %s has only %d compute servers: CountSuccess thresholdValue must be %d or less", n, size, size)
		}
	}
	return e.Err()
}
