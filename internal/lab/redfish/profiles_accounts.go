package redfish

func init() { register("ilo4", ilo4) }

// ilo4: HPE iLO 4 (ProLiant Gen9), for its accounts; media, sessions and
// firmware are ilo5's. Its ManagerAccount has no Enabled (an account logs
// in while it exists: HPE removes one by DELETE,
// HewlettPackard/ilo-rest-api-docs, AccountService) and no RoleId: a body
// with either is refused 400, and what an account may do is
// Oem.Hp.Privileges (LoginPriv, RemoteConsolePriv, VirtualMediaPriv,
// VirtualPowerAndResetPriv, iLOConfigPriv, UserConfigPriv; iLO 4 user
// guide, "iLO user privileges"). The password's minimum is
// Oem.Hp.MinPasswordLength (HPE's iLO 4 resource definitions: 0 to 39,
// 8 by default), and iLO 4 takes passwords of up to 39 characters.
func ilo4() Profile {
	p := ilo5()
	p.Name, p.Product, p.Model = "ilo4", "ProLiant DL360 Gen9", "ProLiant DL360 Gen9"
	p.ManagerModel, p.Firmware, p.BiosVersion = "iLO 4", "iLO 4 v2.82", "P89 v2.80 (10/16/2020)"
	p.Accounts = AccountRules{NoEnabled: true, NoRoleID: true, OemVendor: "Hp", MinPassword: 8, MaxPassword: 39, OemMinPassword: true}
	return p
}
