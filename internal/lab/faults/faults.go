// Package faults names the failures the lab can inject. One table says
// which simulator plays each kind (a machine's BMC or its Kubernetes node)
// and whether it strikes a share of requests; the inventory's lab section,
// the admin endpoint, `starter lab fault` and both simulators read it.
package faults

import (
	"fmt"
	"strings"
)

// Kind is one failure the lab can inject into a BMM.
type Kind string

// The kinds, as docs/lab.md#faults describes them.
const (
	ReimageFails   Kind = "reimage-fails"     // reimage ends in reimage-failed, no bootable OS
	ReimageHangs   Kind = "reimage-hangs"     // reimage never finishes
	BMC5xx         Kind = "bmc-5xx"           // a share of requests answered 500/503
	BMCTimeout     Kind = "bmc-timeout"       // a share of requests that hang (≤ 2 min, or until the client gives up)
	BMCUnreachable Kind = "bmc-unreachable"   // connections dropped without an answer
	PowerOnFails   Kind = "power-on-fails"    // power-on accepted (202), machine stays Off, task Exception
	StaleETag      Kind = "stale-etag"        // a share of PATCHes answered 412 even with the right If-Match
	ResetIgnored   Kind = "reset-ignored"     // resets answered 204 and ignored: the machine does nothing
	MediaUnmount   Kind = "media-unmountable" // InsertMedia answered, the image never mounts (the BMC cannot reach it)
	MediaWrong     Kind = "media-wrong-image" // InsertMedia answered, the slot shows a different image (another file on another host)
	// Firmware updates (internal/lab/redfish firmware_update.go).
	FirmwareException Kind = "firmware-exception" // the update task ends in Exception; the version is unchanged
	FirmwareStuck     Kind = "firmware-stuck"     // the update task never leaves Running (the service stays busy)
	FirmwareUnchanged Kind = "firmware-unchanged" // the update task Completes and the old version stays
	// The BMC's own update comes back with its factory accounts only, as a
	// flash without "preserve configuration" does (AMI's flash tools ask;
	// Supermicro's BMC update takes PreserveCfg): every other account gone.
	AccountsReset  Kind = "bmc-accounts-reset"
	NodeNotReady   Kind = "node-not-ready"  // the kubelet reports Ready=False while set
	ReadOnlyRootFS Kind = "readonly-rootfs" // node condition ReadOnlyRootFilesystem=True
	NodeUnknown    Kind = "node-unknown"    // heartbeats stop and the node goes Ready=Unknown
	PDBBlocks      Kind = "pdb-blocks"      // every PDB covering a pod on the node allows no disruption
	SlowDrain      Kind = "slow-drain"      // evicted pods on the node take longer to go
	// Keyset pods (internal/lab/kubesim keyset_hold.go, taints.go).
	ImagePullFails   Kind = "image-pull-fails"  // the kubelet cannot pull a keyset pod's image: ErrImagePull, then ImagePullBackOff
	MaintenanceTaint Kind = "maintenance-taint" // the node carries a maintenance taint (NoSchedule) while set
)

// Target is the simulator that plays a fault.
type Target int

const (
	BMC  Target = iota + 1 // the machine's Redfish BMC (internal/lab/redfish)
	Node                   // its Kubernetes node (internal/lab/kubesim)
)

type row struct {
	kind   Kind
	target Target
	rated  bool // the rate is the share of requests hit; other kinds hit every time
}

// table lists every kind once, in the order users see them.
var table = []row{
	{ReimageFails, BMC, false},
	{ReimageHangs, BMC, false},
	{BMC5xx, BMC, true},
	{BMCTimeout, BMC, true},
	{BMCUnreachable, BMC, false},
	{PowerOnFails, BMC, false},
	{StaleETag, BMC, true},
	{ResetIgnored, BMC, false},
	{MediaUnmount, BMC, false},
	{MediaWrong, BMC, false},
	{FirmwareException, BMC, false},
	{FirmwareStuck, BMC, false},
	{FirmwareUnchanged, BMC, false},
	{AccountsReset, BMC, false},
	{NodeNotReady, Node, false},
	{ReadOnlyRootFS, Node, false},
	{NodeUnknown, Node, false},
	{PDBBlocks, Node, false},
	{SlowDrain, Node, false},
	{ImagePullFails, Node, false},
	{MaintenanceTaint, Node, false},
}

// All lists every kind.
func All() []Kind { return kinds(func(row) bool { return true }) }

// Rated lists the kinds whose rate is the share of requests they hit.
func Rated() []Kind { return kinds(func(r row) bool { return r.rated }) }

// Target is the simulator that plays k; 0 when k is not a fault kind.
func (k Kind) Target() Target {
	for _, r := range table {
		if r.kind == k {
			return r.target
		}
	}
	return 0
}

// Known reports whether k is a fault kind.
func (k Kind) Known() bool { return k.Target() != 0 }

// Check says what is allowed when k is not a fault kind.
func (k Kind) Check() error {
	if k.Known() {
		return nil
	}
	return fmt.Errorf("fault kind %q: allowed %s", string(k), Join(All()))
}

// Join spells ks for a message: "a, b, c".
func Join(ks []Kind) string {
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}

func kinds(keep func(row) bool) []Kind {
	var out []Kind
	for _, r := range table {
		if keep(r) {
			out = append(out, r.kind)
		}
	}
	return out
}
