package model

// Role is what a server does in the cluster; it becomes the rackroll.io/role
// node label.
type Role string

// Roles. KCP and KCP-spare are normally chosen by placement among management
// servers; an inventory may pin them.
const (
	RoleKCP        Role = "kcp"
	RoleKCPSpare   Role = "kcp-spare"
	RoleManagement Role = "management"
	RoleCompute    Role = "compute"
)

// Roles lists every role, in the order messages show them.
var Roles = []Role{RoleManagement, RoleCompute, RoleKCP, RoleKCPSpare}

// IsControlPlane reports whether r is an active or spare KCP.
func (r Role) IsControlPlane() bool { return r == RoleKCP || r == RoleKCPSpare }

// IsManagementPool reports whether r runs on a management server; KCPs and
// the spare are drawn from that pool.
func (r Role) IsManagementPool() bool { return r.IsControlPlane() || r == RoleManagement }

// Valid reports whether r is one of Roles.
func (r Role) Valid() bool {
	for _, k := range Roles {
		if r == k {
			return true
		}
	}
	return false
}
