package api

import (
	"slices"
	"time"

	"github.com/rackroll/rackroll/internal/model"
)

// ApplyPatch applies p to b as the ledger (workflows/cluster) does today: the
// mark is state. It is pure, so the ledger and the test fake site apply a
// patch the same way.
func ApplyPatch(b *model.BMM, p BMMPatch, now time.Time) { ApplyPatchAs(b, p, now, true) }

// ApplyPatchAs applies p; marks says whether the mark is kept as state (a
// ledger whose history predates unhealthy-mark-state keeps it in the message).
func ApplyPatchAs(b *model.BMM, p BMMPatch, now time.Time, marks bool) {
	prev := b.DetailedStatus
	if marks { // a mark an older ledger kept in the message is converted first
		b.ApplyMark(nil, false, now)
	}
	defer applyRemediationFacts(b, p, prev, now, marks)
	if p.Roles != nil {
		b.Roles = append([]model.Role(nil), p.Roles...)
	}
	set := func(dst *string, v *string) {
		if v != nil {
			*dst = *v
		}
	}
	set(&b.ManagementGroup, p.ManagementGroup)
	set(&b.RuntimeVersion, p.RuntimeVersion)
	set(&b.DetailedStatus, p.DetailedStatus)
	set(&b.DetailedStatusMessage, p.DetailedStatusMessage)
	set(&b.PowerState, p.PowerState)
	set(&b.CordonStatus, p.CordonStatus)
	set(&b.ReadyState, p.ReadyState)
	if p.ReadySince != nil {
		t := *p.ReadySince
		b.ReadySince = &t
	}
	if p.ReadOnlyRootFS != nil {
		b.ReadOnlyRootFS = *p.ReadOnlyRootFS
	}
	set(&b.BootMACAddress, p.BootMACAddress)
	set(&b.BMCMACAddress, p.BMCMACAddress)
	set(&b.SerialNumber, p.SerialNumber)
	if p.BMC != nil {
		b.BMC = *p.BMC
	}
}

// applyRemediationFacts is the part of a patch the remediation rules read:
// the provisioning start (model.TrackProvisioning, from the status change
// the patch made) and the ladder's position.
func applyRemediationFacts(b *model.BMM, p BMMPatch, prev string, now time.Time, marks bool) {
	b.TrackProvisioning(prev, p.DetailedStatus != nil, p.ProvisioningOver, now)
	if marks {
		b.ApplyMark(p.MarkUnhealthy, p.ClearUnhealthy, now)
	} else {
		legacyMark(b, p)
	}
	if p.ClearLadder {
		b.Ladder = nil
	}
	if p.Ladder != nil {
		m := *p.Ladder
		m.Steps = slices.Clone(m.Steps)
		b.Ladder = &m
	}
}

// legacyMark is the mark as a ledger before the change kept it: the status
// message is the mark, any write of another message erases it.
func legacyMark(b *model.BMM, p BMMPatch) {
	switch {
	case p.ClearUnhealthy && b.DetailedStatusMessage == model.UnhealthyMessage:
		b.DetailedStatusMessage = ""
	case p.MarkUnhealthy != nil:
		b.DetailedStatusMessage = model.UnhealthyMessage
	}
	if b.DetailedStatusMessage != model.UnhealthyMessage {
		b.Unhealthy = nil
	} else if b.Unhealthy == nil && p.MarkUnhealthy != nil {
		m := *p.MarkUnhealthy
		b.Unhealthy = &m
	}
}
