package lease

// Operation is what a lease holder does to its BMM. The operator's BMM
// actions (api.Action*) are the operations of the same name.
type Operation string

const (
	OpRestart     Operation = "restart"
	OpPowerOff    Operation = "power-off"
	OpStart       Operation = "start"
	OpReimage     Operation = "reimage"
	OpReplace     Operation = "replace"
	OpCordon      Operation = "cordon"
	OpUncordon    Operation = "uncordon"
	OpUpgrade     Operation = "upgrade"
	OpRemediation Operation = "remediation"
	OpFailover    Operation = "failover"
	// OpReplaceRoles: a re-placement's role change (promote, retire,
	// demote), which may reimage the server or take it out of the control
	// plane.
	OpReplaceRoles Operation = "replace-roles"
)

// Disruptive reports whether the operation takes the server out of service
// and so takes a disruptive lease. The operator rules (docs/behaviour.md#control-plane) count restart,
// reimage and replace; power-off, an upgrade, a remediation, a failover
// and a role change take the server out just the same. Start, cordon and uncordon take a
// non-disruptive lease: it only keeps other operations off the BMM.
func (o Operation) Disruptive() bool {
	switch o {
	case OpRestart, OpPowerOff, OpReimage, OpReplace, OpUpgrade, OpRemediation, OpFailover, OpReplaceRoles:
		return true
	}
	return false
}
