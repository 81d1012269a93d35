package model

import (
	"slices"
	"time"
)

// BMM is the ledger's view of one bare-metal machine. Field names follow the
// operator API; BMC holds only a credentials reference, never a secret.
type BMM struct {
	Name                  string  `json:"name"`
	Rack                  string  `json:"rack"`
	Roles                 []Role  `json:"roles"`
	ManagementGroup       string  `json:"managementGroup,omitempty"`
	NodeName              string  `json:"nodeName"`
	BMC                   BMCSpec `json:"bmc"`
	BootMACAddress        string  `json:"bootMACAddress"`
	BMCMACAddress         string  `json:"bmcMACAddress,omitempty"` // set by a Replace
	SerialNumber          string  `json:"serialNumber,omitempty"`
	RuntimeVersion        string  `json:"runtimeVersion,omitempty"`
	DetailedStatus        string  `json:"detailedStatus,omitempty"`
	DetailedStatusMessage string  `json:"detailedStatusMessage,omitempty"`
	PowerState            string  `json:"powerState,omitempty"`
	CordonStatus          string  `json:"cordonStatus,omitempty"`
	ReadyState            string  `json:"readyState,omitempty"`
	// ReadySince is when the node's Ready condition last changed, as the
	// health monitor observed it; ReadOnlyRootFS its read-only root
	// filesystem condition. Both are what the site showed, recorded each
	// monitor round, so `cluster show` tells the truth.
	ReadySince     *time.Time `json:"readySince,omitempty"`
	ReadOnlyRootFS bool       `json:"readOnlyRootFS,omitempty"`
	// ProvisioningSince is when the BMM's last provisioning started
	// (registration, or a reimage of any kind entering Deprovisioning or
	// Provisioning); nil once it ended Provisioned (or deliberately
	// Available) or its node was seen Ready. The provisioning-timeout
	// trigger counts from it (docs/behaviour.md#remediation: six hours).
	ProvisioningSince *time.Time `json:"provisioningSince,omitempty"`
	// Ladder is how far remediation went on the BMM, so that one that
	// fails again within the damping window continues where it stopped.
	Ladder *LadderMark `json:"ladder,omitempty"`
	// Unhealthy is the mark remediation leaves when it gives up on the
	// BMM: state of its own, so that no status write erases it
	// (docs/control-plane.md). The ledger surfaces it in the status
	// message; only a Replace (or the failover's provisioning of the
	// relabelled KCP) clears it.
	Unhealthy *UnhealthyMark `json:"unhealthy,omitempty"`
}

// UnhealthyMark says why, since when and by whom a BMM was marked Unhealthy.
type UnhealthyMark struct {
	Reason string    `json:"reason"`
	Since  time.Time `json:"since"`
	By     string    `json:"by"`
}

// LadderMark records a BMM's remediation ladder: its role's steps taken
// (recovery attempts that counted, in order) and when the last one ended.
// Only a Replace clears it; past the damping window it no longer counts.
type LadderMark struct {
	Role  Role      `json:"role"`
	Steps []string  `json:"steps"`
	At    time.Time `json:"at"`
}

// BMM detailed statuses.
const (
	BMMPreparing      = "Preparing"
	BMMError          = "Error"
	BMMAvailable      = "Available"
	BMMProvisioning   = "Provisioning"
	BMMProvisioned    = "Provisioned"
	BMMDeprovisioning = "Deprovisioning"
)

// Power, cordon and ready states.
const (
	PowerOn      = "On"
	PowerOff     = "Off"
	Cordoned     = "Cordoned"
	Uncordoned   = "Uncordoned"
	ReadyTrue    = "True"
	ReadyFalse   = "False"
	ReadyUnknown = "Unknown"
)

// UnhealthyMessage is the detailedStatusMessage the ledger shows while a BMM
// is marked (BMM.Unhealthy); docs/control-plane.md says who clears the mark.
const UnhealthyMessage = "Warning: BMM Node is unhealthy and may require hardware replacement."

// HasRole reports whether b carries role r.
func (b BMM) HasRole(r Role) bool { return slices.Contains(b.Roles, r) }

// MarkedUnhealthy reports whether remediation gave up on b: the one
// predicate. The mark is b.Unhealthy; a bare UnhealthyMessage is a mark
// from a ledger written before marks were state (the ledger converts it,
// and recorded histories still decode it so).
func (b BMM) MarkedUnhealthy() bool {
	return b.Unhealthy != nil || b.DetailedStatusMessage == UnhealthyMessage
}

// LegacyMarkBy is who a mark converted from a bare status message was set by.
const LegacyMarkBy = "a ledger before marks were state (detailedStatusMessage)"

// ApplyMark applies what a ledger write says about b's mark, then surfaces
// it: mark sets it (the first mark's reason and time stay), clear drops
// it, a bare UnhealthyMessage written by an older writer becomes a mark,
// and a marked BMM's status message is UnhealthyMessage whatever was
// written: only clear returns it.
func (b *BMM) ApplyMark(mark *UnhealthyMark, clear bool, now time.Time) {
	switch {
	case clear:
		b.Unhealthy = nil
		if b.DetailedStatusMessage == UnhealthyMessage {
			b.DetailedStatusMessage = ""
		}
	case mark != nil && b.Unhealthy == nil:
		m := *mark
		b.Unhealthy = &m
	case b.Unhealthy == nil && b.DetailedStatusMessage == UnhealthyMessage:
		b.Unhealthy = &UnhealthyMark{Reason: UnhealthyMessage, Since: now, By: LegacyMarkBy}
	}
	if b.Unhealthy != nil {
		b.DetailedStatusMessage = UnhealthyMessage
	}
}

// Healthy reports whether b is neither marked unhealthy nor not-Ready.
func (b BMM) Healthy() bool { return !b.MarkedUnhealthy() && b.ReadyState == ReadyTrue }

// Cluster is the ledger of one cluster.
type Cluster struct {
	Name                  string `json:"name"`
	RuntimeVersion        string `json:"runtimeVersion"`
	DetailedStatus        string `json:"detailedStatus,omitempty"`
	DetailedStatusMessage string `json:"detailedStatusMessage,omitempty"`
	BMMs                  []BMM  `json:"bmms"`
}

// Cluster detailed statuses.
const (
	ClusterRunning      = "Running"
	ClusterUpdating     = "Updating"
	ClusterUpdatePaused = "UpdatePaused"
	ClusterDegraded     = "Degraded"
	ClusterFailed       = "Failed"
)

// BMM returns the named BMM and whether it exists.
func (c *Cluster) BMM(name string) (*BMM, bool) {
	for i := range c.BMMs {
		if c.BMMs[i].Name == name {
			return &c.BMMs[i], true
		}
	}
	return nil, false
}

// ControlPlaneSize is what the placement table keeps for this cluster:
// its active KCPs and spares, by the racks its BMMs stand in.
func (c *Cluster) ControlPlaneSize() (active, spare int) {
	racks := map[string]bool{}
	for _, b := range c.BMMs {
		racks[b.Rack] = true
	}
	return ControlPlaneSize(len(racks))
}
