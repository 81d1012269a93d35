package api

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rackroll/rackroll/internal/lease"
)

// BMM actions (the operator API's verbs; also the lease's operation and the
// RackrollOperation search attribute of an action workflow).
const (
	ActionRestart  = string(lease.OpRestart)
	ActionPowerOff = string(lease.OpPowerOff)
	ActionStart    = string(lease.OpStart)
	ActionReimage  = string(lease.OpReimage)
	ActionReplace  = string(lease.OpReplace)
	ActionCordon   = string(lease.OpCordon)
	ActionUncordon = string(lease.OpUncordon)
)

// Actions lists every action in the order the CLI shows them.
var Actions = []string{ActionRestart, ActionPowerOff, ActionStart, ActionReimage, ActionReplace, ActionCordon, ActionUncordon}

// Replace storage policies and safeguard modes (operator API).
const (
	StoragePreserve   = "Preserve"
	StorageDiscardAll = "DiscardAll"
	SafeguardAll      = "All"
	SafeguardNone     = "None"
)

// ReplaceParams are the replace action's parameters. Every field is
// optional: an empty one keeps what the ledger knows (a DIMM swap changes no
// MAC address). BMCCredentials names an entry of the inventory's
// bmcCredentials — a reference, never a secret.
type ReplaceParams struct {
	BMCCredentials string `json:"bmcCredentials,omitempty"`
	BMCMacAddress  string `json:"bmcMacAddress,omitempty"`
	BootMacAddress string `json:"bootMacAddress,omitempty"`
	// MachineName is the OS host name; it must be the BMM's node name (a
	// rename would orphan the Kubernetes node).
	MachineName  string `json:"machineName,omitempty"`
	SerialNumber string `json:"serialNumber,omitempty"`
	// StoragePolicy: DiscardAll (default, as the operator API: the RAID
	// controller is reset) or Preserve (virtual disks are kept).
	StoragePolicy string `json:"storagePolicy,omitempty"`
	// SafeguardMode: All (default) refuses to replace a healthy BMM that is
	// not cordoned; None lets replace evacuate it first.
	SafeguardMode string `json:"safeguardMode,omitempty"`
}

// ActionInput starts BMMActionWorkflow (id action:<cluster>:<bmm>:<n>).
// The replace parameters are inline, as in the operator API:
// {"cluster":"site-a","bmm":"rack1-c1","action":"replace","bootMacAddress":"…"}.
type ActionInput struct {
	Cluster      string `json:"cluster"`
	BMM          string `json:"bmm"`
	Action       string `json:"action"`
	SkipShutdown bool   `json:"skipShutdown,omitempty"` // power-off: ForceOff at once
	Evacuate     bool   `json:"evacuate,omitempty"`     // cordon: drain pods and shut down VMs too
	ReplaceParams
	// EvacuateTimeout bounds an evacuation (cordon with evacuate, and the
	// one reimage and replace do first): two thirds for the drain, the rest
	// for VM shutdown, then the action proceeds. Default 30 minutes
	// (docs/behaviour.md#time-limits); labs and tests shorten it.
	EvacuateTimeout time.Duration `json:"evacuateTimeout,omitempty"`
	// TimeLimit shortens the action's time limit (docs/behaviour.md#time-limits: reimage
	// 3 h, replace 4 h, …); 0 or more than the default keeps the
	// default. A reimage that has not brought the node back by then
	// fails naming the node and the BMC's last state.
	TimeLimit time.Duration `json:"timeLimit,omitempty"`
	// Force (with Reason, and By the operator) is break-glass: the action
	// is accepted on a Degraded or Failed cluster. The live control-plane
	// gate and the KCP lease rules still apply (lease.Request.Force).
	Force  bool   `json:"force,omitempty"`
	Reason string `json:"reason,omitempty"`
	By     string `json:"by,omitempty"`
	// ApplyFirmware (replace only): a server whose firmware is below the
	// baseline of the runtime the replace installs gets the baseline
	// applied first, in the same action, within the `firmware` limit,
	// instead of the replace being refused (docs/firmware.md). A forced
	// replace skips the firmware check: the two are not given together.
	ApplyFirmware bool `json:"applyFirmware,omitempty"`
}

// ActionResult is what BMMActionWorkflow returns when the action succeeded
// (a failed action ends the workflow with an error saying why).
type ActionResult struct {
	Cluster        string   `json:"cluster"`
	BMM            string   `json:"bmm"`
	Action         string   `json:"action"`
	Message        string   `json:"message"`
	PowerState     string   `json:"powerState,omitempty"`
	ReadyState     string   `json:"readyState,omitempty"`
	CordonStatus   string   `json:"cordonStatus,omitempty"`
	DetailedStatus string   `json:"detailedStatus,omitempty"`
	RuntimeVersion string   `json:"runtimeVersion,omitempty"`
	DrainTimedOut  bool     `json:"drainTimedOut,omitempty"`
	VMsTimedOut    bool     `json:"vmsTimedOut,omitempty"`
	VMsStopped     []string `json:"vmsStopped,omitempty"`
	VMsStarted     []string `json:"vmsStarted,omitempty"`
	// Firmware is what a replace with applyFirmware did, a line per
	// component ("BIOS 1.10.0 → 1.13.2"), proven by the inventory.
	Firmware []string `json:"firmware,omitempty"`
}

// Error types of a failed action (ApplicationError.Type), for scripts.
const (
	ErrInvalidInput  = "InvalidInput"
	ErrPrecheck      = "PrecheckFailed"
	ErrActionFailed  = "ActionFailed"
	ErrActionTimeout = "ActionTimedOut"
)

// Validate checks the input alone (no I/O): the workflow calls it before
// any side effect and the CLI before it asks for a lease. The break-glass
// fields are checked apart, so both problems are named at once.
func (in ActionInput) Validate() error {
	return errors.Join(in.validateAction(), lease.CheckReason(in.Force, in.Reason))
}

func (in ActionInput) validateAction() error {
	if in.Cluster == "" {
		return fmt.Errorf("cluster is empty: name the cluster whose BMM to act on")
	}
	if in.BMM == "" {
		return fmt.Errorf("bmm is empty: name the bare-metal machine to act on")
	}
	if !oneOf(in.Action, Actions...) {
		return fmt.Errorf("action %q: allowed %s", in.Action, strings.Join(Actions, ", "))
	}
	if in.SkipShutdown && in.Action != ActionPowerOff {
		return fmt.Errorf("skipShutdown true: only power-off takes it (action is %s)", in.Action)
	}
	if in.Evacuate && in.Action != ActionCordon {
		return fmt.Errorf("evacuate true: only cordon takes it (action is %s; reimage and replace evacuate anyway)", in.Action)
	}
	if in.TimeLimit < 0 {
		return fmt.Errorf("timeLimit %v is negative: allowed 0 (the action's own limit) or more", in.TimeLimit)
	}
	if in.EvacuateTimeout < 0 {
		return fmt.Errorf("evacuateTimeout %v is negative: allowed 0 (default 30m) or more", in.EvacuateTimeout)
	}
	if in.ApplyFirmware && in.Action != ActionReplace {
		return fmt.Errorf("applyFirmware true: only replace takes it (action is %s)", in.Action)
	}
	if in.ApplyFirmware && in.Force {
		return errApplyAndForce
	}
	if in.Action != ActionReplace {
		if in.ReplaceParams != (ReplaceParams{}) {
			return fmt.Errorf("replace parameters given for action %s: only replace takes bmcCredentials, bmcMacAddress, bootMacAddress, machineName, serialNumber, storagePolicy, safeguardMode", in.Action)
		}
		return nil
	}
	return in.ReplaceParams.Validate()
}

var errApplyAndForce = errors.New("applyFirmware and force both true (--apply-firmware, --force): a forced replace skips the firmware check; give applyFirmware to apply the baseline, or force with a reason to skip it, not both")

// Validate checks the replace parameters alone.
func (p ReplaceParams) Validate() error {
	if p.StoragePolicy != "" && !oneOf(p.StoragePolicy, StoragePreserve, StorageDiscardAll) {
		return fmt.Errorf("storagePolicy %q: allowed Preserve, DiscardAll", p.StoragePolicy)
	}
	if p.SafeguardMode != "" && !oneOf(p.SafeguardMode, SafeguardAll, SafeguardNone) {
		return fmt.Errorf("safeguardMode %q: allowed All, None", p.SafeguardMode)
	}
	for _, m := range []struct{ field, v string }{{"bmcMacAddress", p.BMCMacAddress}, {"bootMacAddress", p.BootMacAddress}} {
		if m.v != "" && !isMAC(m.v) {
			return fmt.Errorf("%s %q: want six hex pairs like 52:54:00:01:00:01", m.field, m.v)
		}
	}
	if strings.ContainsAny(p.BMCCredentials, ":=/ ") {
		return fmt.Errorf("bmcCredentials %q: give the name of an inventory bmcCredentials entry, never a username or password", p.BMCCredentials)
	}
	return nil
}

// WithDefaults fills the operator API's defaults (DiscardAll, All).
func (p ReplaceParams) WithDefaults() ReplaceParams {
	if p.StoragePolicy == "" {
		p.StoragePolicy = StorageDiscardAll
	}
	if p.SafeguardMode == "" {
		p.SafeguardMode = SafeguardAll
	}
	return p
}

func oneOf(s string, allowed ...string) bool {
	for _, a := range allowed {
		if s == a {
			return true
		}
	}
	return false
}

func isMAC(s string) bool {
	parts := strings.FieldsFunc(s, func(r rune) bool { return r == ':' || r == '-' })
	if len(parts) != 6 || len(s) != 17 {
		return false
	}
	for _, p := range parts {
		if len(p) != 2 || strings.Trim(strings.ToLower(p), "0123456789abcdef") != "" {
			return false
		}
	}
	return true
}

// ActionSummary is the static summary of an action run, as the UI lists it:
// "restart rack1-mgmt1 of site-a".
func ActionSummary(action, bmm, cluster string) string {
	return fmt.Sprintf("%s %s of %s", action, bmm, cluster)
}

// ActionDetails is the action's static details in the Temporal UI: the
// options it runs with. The BMC credentials reference of a replace is left
// out; a reference is no secret, but the UI need not show it.
func ActionDetails(in ActionInput) string {
	var parts []string
	switch in.Action {
	case ActionPowerOff:
		parts = append(parts, fmt.Sprintf("skipShutdown %v", in.SkipShutdown))
	case ActionCordon:
		parts = append(parts, fmt.Sprintf("evacuate %v", in.Evacuate))
	case ActionReplace:
		p := in.ReplaceParams.WithDefaults()
		parts = append(parts, "safeguardMode "+p.SafeguardMode, "storagePolicy "+p.StoragePolicy)
		for _, f := range [][2]string{{"bootMacAddress", p.BootMacAddress}, {"bmcMacAddress", p.BMCMacAddress}, {"serialNumber", p.SerialNumber}} {
			if f[1] != "" {
				parts = append(parts, f[0]+" "+f[1])
			}
		}
		if in.ApplyFirmware {
			parts = append(parts, "applyFirmware")
		}
	}
	if in.EvacuateTimeout > 0 {
		parts = append(parts, "evacuate limit "+in.EvacuateTimeout.String())
	}
	if in.Force {
		parts = append(parts, fmt.Sprintf("FORCED by %s: %s", orUnknown(in.By), in.Reason))
	}
	if len(parts) == 0 {
		return "no options"
	}
	return strings.Join(parts, ", ")
}

func orUnknown(s string) string {
	if s == "" {
		return "an unnamed operator"
	}
	return s
}

// TroubleshootID is the runbook's id: one runbook per BMM at a time.
func TroubleshootID(cluster, bmm string) string { return "troubleshoot:" + cluster + ":" + bmm }

// Troubleshooting problems (docs/behaviour.md#troubleshooting).
const (
	ProblemUnresponsive = "unresponsive"  // restart → reimage → replace
	ProblemOSCorruption = "os-corruption" // reimage → replace
	ProblemHardware     = "hardware"      // replace
	ProblemSecurity     = "security"      // reimage → replace
)

// Problems lists the known problems.
var Problems = []string{ProblemUnresponsive, ProblemOSCorruption, ProblemHardware, ProblemSecurity}

// TroubleshootInput starts TroubleshootWorkflow (id troubleshoot:<cluster>:<bmm>).
type TroubleshootInput struct {
	Cluster string `json:"cluster"`
	BMM     string `json:"bmm"`
	Problem string `json:"problem"`
	// EvacuateTimeout is passed on to the reimage and replace steps.
	EvacuateTimeout time.Duration `json:"evacuateTimeout,omitempty"`
	// Force, Reason and By are break-glass as for a BMM action: each
	// step's action is forced on a Degraded or Failed cluster, through the
	// live control-plane gate all the same.
	Force  bool   `json:"force,omitempty"`
	Reason string `json:"reason,omitempty"`
	By     string `json:"by,omitempty"`
	// ApplyFirmware is passed on to the replace step (ActionInput's): a
	// server below the baseline of the runtime it installs gets it applied
	// first instead of the replace being refused. Absent in a runbook
	// started before it existed: false, the replace checks as before.
	ApplyFirmware bool `json:"applyFirmware,omitempty"`
}

// Validate checks the input alone.
func (in TroubleshootInput) Validate() error {
	var errs []error
	if in.Cluster == "" || in.BMM == "" {
		errs = append(errs, fmt.Errorf("cluster %q and bmm %q: both are required", in.Cluster, in.BMM))
	}
	if !oneOf(in.Problem, Problems...) {
		errs = append(errs, fmt.Errorf("problem %q: allowed %s", in.Problem, strings.Join(Problems, ", ")))
	}
	if in.EvacuateTimeout < 0 {
		errs = append(errs, fmt.Errorf("evacuateTimeout %v is negative", in.EvacuateTimeout))
	}
	if in.ApplyFirmware && in.Force {
		errs = append(errs, errApplyAndForce)
	}
	return errors.Join(append(errs, lease.CheckReason(in.Force, in.Reason))...)
}

// ConfirmReplace is the payload of signal confirm-replace: the operator
// has done the physical repair and gives the new hardware facts (empty
// fields keep the ledger's). SafeguardMode defaults to None here: the
// runbook evacuates a BMM that is still Ready.
type ConfirmReplace struct {
	ReplaceParams
}

// Troubleshoot phases (query status .phase).
const (
	TroubleshootRunning      = "Running"
	TroubleshootAwaitConfirm = "AwaitingReplaceConfirmation"
	TroubleshootResolved     = "Resolved"
	TroubleshootUnresolved   = "Unresolved"
)

// TroubleshootStep is one rung of the ladder.
type TroubleshootStep struct {
	Action     string `json:"action"`
	WorkflowID string `json:"workflowId,omitempty"`
	State      string `json:"state"` // Pending, Running, Succeeded, Failed, Skipped
	Error      string `json:"error,omitempty"`
}

// TroubleshootStatus is what query `status` (and the result) returns.
type TroubleshootStatus struct {
	Cluster string             `json:"cluster"`
	BMM     string             `json:"bmm"`
	Problem string             `json:"problem"`
	Phase   string             `json:"phase"`
	Message string             `json:"message"`
	Steps   []TroubleshootStep `json:"steps"`
}
