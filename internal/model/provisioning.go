package model

import "time"

// provisioningStatuses are the detailed statuses of a provisioning under
// way: a reimage of any kind (upgrade, BMM reimage or replace, remediation,
// failover) passes through Deprovisioning, then Provisioning.
func provisioningStatus(s string) bool { return s == BMMDeprovisioning || s == BMMProvisioning }

// Reinstalling: the BMM's OS is being reinstalled now (a provisioning
// under way, by whichever workflow).
func (b BMM) Reinstalling() bool { return provisioningStatus(b.DetailedStatus) }

// TrackProvisioning keeps ProvisioningSince as the ledger applies a patch
// to b: statusSet says the patch recorded a detailedStatus (prev is the one
// before; a patch of other facts, such as the monitor's Ready, changes
// nothing here). A status that enters a provisioning (Deprovisioning or
// Provisioning, from anything else) starts the clock at now; Provisioned
// (the node came back) and Available (deprovisioned on purpose, as a
// retired spare) end it, as does over (the health monitor saw the node
// Ready). Error leaves it: a provisioning that failed is still one whose
// node never came Ready, which the provisioning-timeout trigger is for.
func (b *BMM) TrackProvisioning(prev string, statusSet, over bool, now time.Time) {
	switch {
	case over || statusSet && (b.DetailedStatus == BMMProvisioned || b.DetailedStatus == BMMAvailable):
		b.ProvisioningSince = nil
	case statusSet && provisioningStatus(b.DetailedStatus) && !provisioningStatus(prev):
		t := now.UTC()
		b.ProvisioningSince = &t
	}
}
