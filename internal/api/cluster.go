package api

import (
	"fmt"
	"slices"
	"time"

	"github.com/rackroll/rackroll/internal/firmware"
	"github.com/rackroll/rackroll/internal/keyset"
	"github.com/rackroll/rackroll/internal/lease"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/placement"
	"github.com/rackroll/rackroll/internal/selfupgrade"
)

// ClusterInput starts ClusterWorkflow (and carries its state across
// continue-as-new).
type ClusterInput struct {
	Inventory model.Inventory        `json:"inventory"`
	Placement []placement.Assignment `json:"placement"`
	// Carry is the state of the previous run after continue-as-new, and
	// CarryHeader its format and writer.
	Carry       *ClusterState           `json:"carry,omitempty"`
	CarryHeader selfupgrade.CarryHeader `json:"carryHeader,omitzero"`
	// ContinueAsNewAfter overrides the history length at which the ledger
	// starts a fresh run (0: at cluster.RunEvents events, or when the
	// server suggests it). Tests use it.
	ContinueAsNewAfter int `json:"continueAsNewAfter,omitempty"`
	// LeaseSweep is how often held leases are checked against their
	// holders (0: 30 s).
	LeaseSweep time.Duration `json:"leaseSweep,omitempty"`
	// Packed, when set, holds Inventory, Placement and Carry gzipped
	// (cluster_pack.go): what the ledger hands its next run.
	Packed []byte `json:"packed,omitempty"`
}

// ClusterState is the ledger: what query `state` returns.
type ClusterState struct {
	Cluster    model.Cluster `json:"cluster"`
	Leases     []lease.Lease `json:"leases"`
	ActionSeq  int           `json:"actionSeq"`
	Kubeconfig string        `json:"kubeconfig,omitempty"` // a path, "secret:ns/name" or KubeconfigInCluster, never the content
	Runs       int           `json:"runs"`                 // continue-as-new generations so far
	// UpgradeTarget is the version of the upgrade in progress (or failed
	// and resumable); empty when none.
	UpgradeTarget string `json:"upgradeTarget,omitempty"`
	// BMCCredentials are the inventory's named credential references
	// (where to find secrets, never the secrets).
	BMCCredentials map[string]model.CredentialRef `json:"bmcCredentials"`
	// ImageURLTemplate locates runtime images ({version} is replaced).
	ImageURLTemplate string `json:"imageURLTemplate"`
	// ImageSHA256 maps a version to its image's checksum (images.sha256).
	ImageSHA256 map[string]string `json:"imageSHA256,omitempty"`
	// Firmware maps a runtime version to the firmware baseline it requires
	// (images.firmware; docs/firmware.md).
	Firmware map[string]firmware.Baseline `json:"firmware,omitempty"`
	// Remediation is the inventory's remediation section with the defaults
	// applied when the ledger took the inventory: readers use it as is.
	Remediation model.RemediationSpec `json:"remediation"`
	// Timeouts are the site's time limits (the inventory's timeouts:
	// section over the defaults), resolved when the ledger took the
	// inventory; zero in a ledger written before them (Limits fills in).
	Timeouts model.Timeouts `json:"timeouts,omitzero"`
	Updated  time.Time      `json:"updated"`
	// SiteTaskQueue is where BMC and Kubernetes activities run: the
	// inventory's site task queue, or "" for the workflow's own.
	SiteTaskQueue string `json:"siteTaskQueue,omitempty"`
	// NodeVersion is where the site's nodes show their runtime version
	// (the inventory's kubernetes.versionLabel or osImagePattern); the
	// workflows pass it to the Kubernetes activities that read one.
	NodeVersion model.NodeVersionSource `json:"nodeVersion,omitzero"`
	// ControlPlane is the inventory's controlPlane section (etcd endpoints
	// and client TLS file paths, never their content); nil when absent.
	ControlPlane *model.ControlPlaneSpec `json:"controlPlane,omitempty"`
	// BreakGlass are the operator overrides accepted, oldest first (the
	// last MaxBreakGlassKept).
	BreakGlass []BreakGlassAct `json:"breakGlass,omitempty"`
	// Keysets are the cluster's access keysets, sorted by name
	// (docs/keysets.md). The ledger keeps their public keys; what it
	// shows is Redacted.
	Keysets []keyset.Keyset `json:"keysets,omitempty"`
	// RemovedKeysets are the last deleted BMC keysets (keyset.MaxRemoved),
	// each with where its accounts were disabled (Updated is when it was
	// deleted).
	RemovedKeysets []keyset.Keyset `json:"removedKeysets,omitempty"`
}

// Limits are the site's time limits, the defaults where the ledger has none.
func (cs ClusterState) Limits() model.Timeouts { return cs.Timeouts.OrDefaults() }

// RegisterRequest re-registers the inventory (update `register`).
type RegisterRequest struct {
	Inventory model.Inventory        `json:"inventory"`
	Placement []placement.Assignment `json:"placement"`
}

// AcquireResult is the answer to `acquire-lease`. Holder is the lease's
// holder id: for a user action asked with an empty holder, the ledger
// assigns the action's workflow id (action:<cluster>:<bmm>:<n>).
type AcquireResult struct {
	Lease  lease.Lease `json:"lease"`
	Holder string      `json:"holder"`
}

// ReleaseRequest drops a lease (`release-lease`).
type ReleaseRequest struct {
	BMM    string `json:"bmm"`
	Holder string `json:"holder"`
}

// BMMPatch records facts about one BMM (`record-bmm`); nil fields are left
// alone. Roles, when set, are also written to the node's labels.
type BMMPatch struct {
	BMM                   string       `json:"bmm"`
	Roles                 []model.Role `json:"roles,omitempty"`
	ManagementGroup       *string      `json:"managementGroup,omitempty"`
	RuntimeVersion        *string      `json:"runtimeVersion,omitempty"`
	DetailedStatus        *string      `json:"detailedStatus,omitempty"`
	DetailedStatusMessage *string      `json:"detailedStatusMessage,omitempty"`
	PowerState            *string      `json:"powerState,omitempty"`
	CordonStatus          *string      `json:"cordonStatus,omitempty"`
	ReadyState            *string      `json:"readyState,omitempty"`
	ReadySince            *time.Time   `json:"readySince,omitempty"`
	ReadOnlyRootFS        *bool        `json:"readOnlyRootFS,omitempty"`
	// ProvisioningOver: the BMM's node was seen Ready, its provisioning
	// start is cleared (the ledger also clears it on Provisioned).
	ProvisioningOver bool `json:"provisioningOver,omitempty"`
	// Ladder records the remediation ladder's position; ClearLadder (a
	// Replace) forgets it.
	Ladder      *model.LadderMark `json:"ladder,omitempty"`
	ClearLadder bool              `json:"clearLadder,omitempty"`
	// MarkUnhealthy marks the BMM Unhealthy (remediation gave up on it);
	// ClearUnhealthy lifts the mark (a Replace, the failover's provisioning
	// of the relabelled KCP). Nothing else changes the mark.
	MarkUnhealthy  *model.UnhealthyMark `json:"markUnhealthy,omitempty"`
	ClearUnhealthy bool                 `json:"clearUnhealthy,omitempty"`
	// Hardware facts a Replace changes.
	BMC            *model.BMCSpec `json:"bmc,omitempty"`
	BootMACAddress *string        `json:"bootMACAddress,omitempty"`
	BMCMACAddress  *string        `json:"bmcMACAddress,omitempty"`
	SerialNumber   *string        `json:"serialNumber,omitempty"`
	// NodeLabels are the labels the ledger owns (model.ManagedOf) as the
	// BMM's node showed them: where they differ from the ledger's, the
	// ledger labels the node again (a Node registered anew by its kubelet).
	// Not ledger state.
	NodeLabels map[string]string `json:"nodeLabels,omitempty"`
}

// ClusterStatusPatch sets the cluster's detailed status (`set-cluster-status`).
type ClusterStatusPatch struct {
	DetailedStatus        string `json:"detailedStatus"`
	DetailedStatusMessage string `json:"detailedStatusMessage"`
	RuntimeVersion        string `json:"runtimeVersion,omitempty"`
	// UpgradeTarget, when set, marks an upgrade to that version in progress;
	// ClearUpgrade clears the mark when the upgrade ends.
	UpgradeTarget string `json:"upgradeTarget,omitempty"`
	ClearUpgrade  bool   `json:"clearUpgrade,omitempty"`
}

// Str is a convenience for patch fields.
func Str(s string) *string { return &s }

// ForBMM is the state narrowed to one BMM: that BMM, its leases, and the
// site-wide references (kubeconfig, credentials, images, remediation).
func (st ClusterState) ForBMM(name string) (ClusterState, error) {
	b, ok := st.Cluster.BMM(name)
	if !ok {
		return ClusterState{}, fmt.Errorf("bmm %q is not in cluster %s", name, st.Cluster.Name)
	}
	out := st
	out.Cluster.BMMs = []model.BMM{*b}
	out.Leases = nil
	for _, l := range st.Leases {
		if l.BMM == name {
			out.Leases = append(out.Leases, l)
		}
	}
	// The keysets' outcomes are one per BMM too: only this one's.
	out.Keysets = nil
	for _, k := range st.Keysets {
		k.Outcomes = slices.DeleteFunc(slices.Clone(k.Outcomes), func(o keyset.Outcome) bool { return o.BMM != name })
		if len(k.Outcomes) == 0 {
			k.Outcomes = nil
		}
		out.Keysets = append(out.Keysets, k)
	}
	out.RemovedKeysets = nil
	return out, nil
}

// KubeconfigInCluster is ClusterState.Kubeconfig for an inventory with
// kubernetes.inCluster: the worker uses its own pod's ServiceAccount.
const KubeconfigInCluster = "in-cluster"

// Page is the state narrowed to the BMMs [from, from+n) of the cluster's
// list, their leases, and the keysets without their outcomes (which grow
// as BMMs × keysets): what a run that walks every BMM a page at a time
// reads, so that no read grows with the site. Total is the BMM count.
func (st ClusterState) Page(from, n int) (page ClusterState, total int) {
	total = len(st.Cluster.BMMs)
	from = min(max(from, 0), total)
	out := st
	out.Cluster.BMMs = slices.Clone(st.Cluster.BMMs[from:min(from+max(n, 0), total)])
	in := map[string]bool{}
	for _, b := range out.Cluster.BMMs {
		in[b.Name] = true
	}
	out.Leases = slices.DeleteFunc(slices.Clone(st.Leases), func(l lease.Lease) bool { return !in[l.BMM] })
	out.Keysets, out.RemovedKeysets = keyset.WithoutOutcomes(st.Keysets), keyset.WithoutOutcomes(st.RemovedKeysets)
	return out, total
}

// PageRequest asks the ledger for a page of its BMMs (query page).
type PageRequest struct {
	From int `json:"from"`
	N    int `json:"n"`
}

// PageResult is a page of the ledger (ClusterState.Page) and the BMM count.
type PageResult struct {
	State ClusterState `json:"state"`
	Total int          `json:"total"`
}
