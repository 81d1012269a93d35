package model

import (
	"fmt"
	"sort"
	"strings"
)

// validateRacks checks racks and servers.
func (inv *Inventory) validateRacks(e *ValidationError) {
	if len(inv.Racks) == 0 {
		e.Add("racks", "", "required: at least one rack with servers")
	}
	u := uniques{rack: map[string]string{}, server: map[string]string{}, node: map[string]string{},
		mac: map[string]string{}, serial: map[string]string{}}
	for i, rack := range inv.Racks {
		p := fmt.Sprintf("racks[%d]", i)
		if checkName(e, p+".name", rack.Name, "rack", isDNSLabel, "lowercase letters, digits and '-' (at most 63)", "rack1") {
			u.check(e, u.rack, p+".name", rack.Name, rack.Name, "rack name")
		}
		for j, s := range rack.Servers {
			inv.validateServer(e, &u, fmt.Sprintf("%s.servers[%d]", p, j), s)
		}
	}
}

// checkName reports a missing or malformed name of a rack or server
// (form: what it must be made of), and says whether it is well formed.
func checkName(e *ValidationError, field, name, of string, valid func(string) bool, form, example string) bool {
	switch {
	case name == "":
		e.Addf(field, "", "required: the %s's name, e.g. %s", of, example)
	case !valid(name):
		e.Addf(field, name, "must be %s, e.g. %s", form, example)
	default:
		return true
	}
	return false
}

// uniques remembers where each unique value was first seen.
type uniques struct{ rack, server, node, mac, serial map[string]string }

// check reports key as a duplicate of its first use, and says whether it was new.
func (u *uniques) check(e *ValidationError, seen map[string]string, field, value, key, what string) bool {
	if first, dup := seen[key]; dup {
		e.Addf(field, value, "duplicate %s: already used at %s", what, first)
		return false
	}
	seen[key] = field
	return true
}

func (inv *Inventory) validateServer(e *ValidationError, u *uniques, p string, s ServerSpec) {
	nameOK := checkName(e, p+".name", s.Name, "server", isDNSSubdomain, "lowercase letters, digits, '-' and '.'", "rack1-mgmt1") &&
		u.check(e, u.server, p+".name", s.Name, s.Name, "server name")
	if !s.Role.Valid() {
		e.Add(p+".role", string(s.Role), "unknown role: allowed values are management, compute, kcp, kcp-spare")
	}
	if s.NodeName != "" && !isDNSSubdomain(s.NodeName) {
		e.Add(p+".nodeName", s.NodeName, "must be a Kubernetes node name: lowercase letters, digits, '-' and '.'")
	} else if nameOK || s.NodeName != "" {
		// A duplicate name already implies a duplicate default node name.
		u.check(e, u.node, p+".nodeName", NodeNameOf(s), NodeNameOf(s), "node name")
	}
	inv.validateBMC(e, p+".bmc", s.BMC)
	switch {
	case s.BootMACAddress == "":
		e.Add(p+".bootMACAddress", "", "required: the MAC address the server boots from, e.g. 52:54:00:00:01:01")
	case !macAddress.MatchString(s.BootMACAddress):
		e.Add(p+".bootMACAddress", s.BootMACAddress, "not a MAC address: want six hex pairs separated by ':', e.g. 52:54:00:00:01:01")
	default:
		u.check(e, u.mac, p+".bootMACAddress", s.BootMACAddress, strings.ToLower(s.BootMACAddress), "bootMACAddress")
	}
	if s.SerialNumber != "" {
		u.check(e, u.serial, p+".serialNumber", s.SerialNumber, s.SerialNumber, "serialNumber")
	}
}

func (inv *Inventory) validateBMC(e *ValidationError, p string, b BMCSpec) {
	switch {
	case b.Address == "":
		e.Add(p+".address", "", "required: the BMC's Redfish URL, e.g. https://10.1.0.11")
	case !IsHTTPURL(b.Address):
		e.Add(p+".address", b.Address, "must be an http(s) URL, e.g. https://10.1.0.11")
	}
	validateBootMode(e, p+".bootMode", b.BootMode)
	if _, ok := inv.BMCCredentials[b.Credentials]; ok {
		return
	}
	known := make([]string, 0, len(inv.BMCCredentials))
	for n := range inv.BMCCredentials {
		known = append(known, n)
	}
	sort.Strings(known)
	hint := "bmcCredentials is empty: add an entry such as default: {usernameEnv: BMC_USERNAME, passwordEnv: BMC_PASSWORD}"
	if len(known) > 0 {
		hint = "name an entry of bmcCredentials: " + joinComma(known)
	}
	if b.Credentials == "" {
		e.Add(p+".credentials", "", "required: "+hint)
	} else {
		e.Add(p+".credentials", b.Credentials, "unknown credentials: "+hint)
	}
}
