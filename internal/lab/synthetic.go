package lab

import (
	"fmt"

	"github.com/rackroll/rackroll/internal/model"
)

// SyntheticInventory builds a site of racks racks with mgmt management and
// compute compute servers each (BMC addresses are placeholders the lab
// replaces).
func SyntheticInventory(cluster string, racks, mgmt, compute int) *model.Inventory {
	inv := &model.Inventory{Cluster: cluster, RuntimeVersion: "4.1.2",
		BMCCredentials: map[string]model.CredentialRef{"default": {UsernameEnv: "RACKROLL_SYNTH_USER", PasswordEnv: "RACKROLL_SYNTH_PASS"}}}
	n := 0
	for r := 1; r <= racks; r++ {
		rack := model.RackSpec{Name: fmt.Sprintf("rack%d", r)}
		add := func(name string, role model.Role) {
			n++
			rack.Servers = append(rack.Servers, model.ServerSpec{Name: name, Role: role,
				BMC:            model.BMCSpec{Address: fmt.Sprintf("https://10.%d.%d.%d", n/65536, n/256%256, n%256), Credentials: "default"},
				BootMACAddress: fmt.Sprintf("52:54:00:%02x:%02x:%02x", n/65536, n/256%256, n%256), SerialNumber: fmt.Sprintf("SN-%06d", n)})
		}
		for m := 1; m <= mgmt; m++ {
			add(fmt.Sprintf("rack%d-mgmt%d", r, m), model.RoleManagement)
		}
		for c := 1; c <= compute; c++ {
			add(fmt.Sprintf("rack%d-c%d", r, c), model.RoleCompute)
		}
		inv.Racks = append(inv.Racks, rack)
	}
	return inv
}
