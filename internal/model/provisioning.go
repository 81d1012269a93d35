package model

import "time"

// provisioningStatuses are the detailed statuses of a provisioning under
// way: a reimage of any kind (upgrade, BMM reimage or replace, remediation,
// failover) passes through Deprovisioning, then Provisioning.
func provisioningStatus(s string) bool { return s == BMMDeprovisioning || s == BMMProvisioning }

// TrackProvisioning keeps ProvisioningSince as the ledger applies a change
// to b whose detailedStatus was prev: a status that enters a provisioning
// (Deprovisioning or Provisioning, from anything else) starts the clock at
// now; Provisioned (the node came back) and Available (deprovisioned on
// purpose, as a retired spare) end it, as does over (the health monitor saw
// the node Ready). Error leaves it: a provisioning that failed is still
// one whose node never came Ready, which the provisioning-timeout trigger
// is for.
func (b *BMM) TrackProvisioning(prev string, over bool, now time.Time) {
	switch {
	case over || b.DetailedStatus == BMMProvisioned || b.DetailedStatus == BMMAvailable:
		b.ProvisioningSince = nil
	case provisioningStatus(b.DetailedStatus) && !provisioningStatus(prev):
		t := now.UTC()
		b.ProvisioningSince = &t
	}
}
