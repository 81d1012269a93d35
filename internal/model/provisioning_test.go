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
		unset     bool // the patch did not record a status
		want      *time.Time
	}{
		{"a reimage starts", BMMProvisioned, BMMDeprovisioning, nil, false, false, &t0},
		{"straight to Provisioning starts too", BMMError, BMMProvisioning, nil, false, false, &t0},
		{"a failed one restarted counts from the new start", BMMError, BMMDeprovisioning, &earlier, false, false, &t0},
		{"Deprovisioning to Provisioning is the same provisioning", BMMDeprovisioning, BMMProvisioning, &earlier, false, false, &earlier},
		{"a message update keeps the start", BMMProvisioning, BMMProvisioning, &earlier, false, false, &earlier},
		{"a failure keeps the start", BMMProvisioning, BMMError, &earlier, false, false, &earlier},
		{"Provisioned ends it", BMMProvisioning, BMMProvisioned, &earlier, false, false, nil},
		{"a deprovisioned spare is not provisioning", BMMDeprovisioning, BMMAvailable, &earlier, false, false, nil},
		{"the node seen Ready ends it", BMMError, BMMError, &earlier, true, false, nil},
		{"nothing under way stays so", BMMProvisioned, BMMProvisioned, nil, false, false, nil},
		{"a patch of other facts keeps a registration's start", BMMProvisioned, BMMProvisioned, &earlier, false, true, &earlier},
		{"nor starts one", BMMProvisioning, BMMProvisioning, nil, false, true, nil},
		{"the monitor's end needs no status", BMMProvisioned, BMMProvisioned, &earlier, true, true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := BMM{DetailedStatus: tc.now, ProvisioningSince: tc.since}
			b.TrackProvisioning(tc.prev, !tc.unset, tc.over, t0)
			assert.Equal(t, tc.want, b.ProvisioningSince)
		})
	}
}
