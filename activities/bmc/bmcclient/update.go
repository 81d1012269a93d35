package bmcclient

// UpdateRequest is one firmware update, with what the client needs to
// send it as the BMC asks.
type UpdateRequest struct {
	// Image is the package's URL (SimpleUpdate: the BMC fetches it).
	Image string
	// ApplyTime is the @Redfish.OperationApplyTime asked for; "" leaves
	// it to the BMC (Immediate).
	ApplyTime string
	// Kind is the component's kind (bios, nic, storage, other, bmc) and
	// RelatedItem the URIs its FirmwareInventory members name: Targets
	// are these, else the System (host firmware) or the Manager (bmc).
	Kind        string
	RelatedItem []string
}

// NotSent is a failure before an update request went out (reading the
// UpdateService or the action's ActionInfo): nothing started, so a retry
// may send the request; Err says what failed.
type NotSent struct{ Err error }

func (e *NotSent) Error() string { return e.Err.Error() }
func (e *NotSent) Unwrap() error { return e.Err }
