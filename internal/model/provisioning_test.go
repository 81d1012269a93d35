package model

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestTrackProvisioning(t *testing.T) {
	t0 := time.Date(2026, 11, 23, 6, 0, 0, 0, time.UTC)
	earlier := t0.Add(-time.Hour)
	for _, tc := range []struct {
		name      string
		prev, now string
		since     *time.Time
		over      bool
		want      *time.Time
	}{
		{"a reimage starts", BMMProvisioned, BMMDeprovisioning, nil, false, &t0},
		{"straight to Provisioning starts too", BMMError, BMMProvisioning, nil, false, &t0},
		{"a failed one restarted counts from the new start", BMMError, BMMDeprovisioning, &earlier, false, &t0},
		{"Deprovisioning to Provisioning is the same provisioning", BMMDeprovisioning, BMMProvisioning, &earlier, false, &earlier},
		{"a message update keeps the start", BMMProvisioning, BMMProvisioning, &earlier, false, &earlier},
		{"a failure keeps the start", BMMProvisioning, BMMError, &earlier, false, &earlier},
		{"Provisioned ends it", BMMProvisioning, BMMProvisioned, &earlier, false, nil},
		{"a deprovisioned spare is not provisioning", BMMDeprovisioning, BMMAvailable, &earlier, false, nil},
		{"the node seen Ready ends it", BMMError, BMMError, &earlier, true, nil},
		{"nothing under way stays so", BMMProvisioned, BMMProvisioned, nil, false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := BMM{DetailedStatus: tc.now, ProvisioningSince: tc.since}
			b.TrackProvisioning(tc.prev, tc.over, t0)
			assert.Equal(t, tc.want, b.ProvisioningSince)
		})
	}
}
