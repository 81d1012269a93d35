package remediate

import "github.com/rackroll/rackroll/internal/model"

// RoleOf is the role that decides how b is remediated. The ledger keeps one
// role per BMM; should it hold several, the most critical wins.
func RoleOf(b model.BMM) model.Role {
	for _, r := range []model.Role{model.RoleKCP, model.RoleKCPSpare, model.RoleManagement, model.RoleCompute} {
		if b.HasRole(r) {
			return r
		}
	}
	return ""
}
