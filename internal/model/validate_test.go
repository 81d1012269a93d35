package model

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// site builds a valid inventory: racks racks, each with mgmt management and
// compute compute servers.
func site(racks, mgmt, compute int) *Inventory {
	inv := &Inventory{
		Cluster:        "site-a",
		RuntimeVersion: "4.1.2",
		Kubernetes:     KubernetesSpec{Kubeconfig: "/etc/rackroll/site-a.kubeconfig"},
		BMCCredentials: map[string]CredentialRef{
			"default": {UsernameEnv: "BMC_USERNAME", PasswordEnv: "BMC_PASSWORD"},
			"vendor":  {UsernameFile: "/run/u", PasswordFile: "/run/p"},
		},
	}
	for r := 1; r <= racks; r++ {
		rack := RackSpec{Name: fmt.Sprintf("rack%d", r)}
		add := func(kind string, i, n int, role Role) {
			rack.Servers = append(rack.Servers, ServerSpec{
				Name: fmt.Sprintf("rack%d-%s%d", r, kind, i), Role: role,
				BMC:            BMCSpec{Address: fmt.Sprintf("https://10.1.%d.%d", r, n), Credentials: "default"},
				BootMACAddress: fmt.Sprintf("52:54:00:%02x:00:%02x", r, n),
				SerialNumber:   fmt.Sprintf("SN-%d-%d", r, n),
			})
		}
		for i := 1; i <= mgmt; i++ {
			add("mgmt", i, 10+i, RoleManagement)
		}
		for i := 1; i <= compute; i++ {
			add("c", i, 20+i, RoleCompute)
		}
		inv.Racks = append(inv.Racks, rack)
	}
	return inv
}

func TestValidateGood(t *testing.T) {
	for _, inv := range []*Inventory{site(1, 3, 4), site(2, 1, 4), site(3, 2, 8), site(4, 1, 8), site(16, 2, 2)} {
		assert.NoError(t, inv.ValidateForSite())
	}
	secret := site(1, 3, 0)
	secret.Kubernetes = KubernetesSpec{KubeconfigSecretRef: &SecretRef{Namespace: "ns", Name: "kc"}}
	secret.BMCCredentials["k8s"] = CredentialRef{SecretRef: &SecretRef{Namespace: "ns", Name: "bmc"}}
	assert.NoError(t, secret.ValidateForSite())

	lab := site(1, 3, 0)
	lab.Kubernetes = KubernetesSpec{}
	assert.NoError(t, lab.Validate(), "lab up fills kubernetes in")

	pins := site(4, 2, 1)
	pins.Racks[0].Servers[0].Role = RoleKCP
	pins.Racks[1].Servers[0].Role = RoleKCP
	pins.Racks[2].Servers[1].Role = RoleKCP
	pins.Racks[3].Servers[0].Role = RoleKCPSpare
	assert.NoError(t, pins.Validate())

	mixed := site(1, 3, 0)
	mixed.BMCCredentials["mixed"] = CredentialRef{UsernameEnv: "U", PasswordFile: "/p"}
	assert.NoError(t, mixed.Validate(), "username from env, password from a file")

	empty := site(3, 2, 1)
	empty.Racks = append(empty.Racks, RackSpec{Name: "rack4"})
	assert.NoError(t, empty.Validate(), "an empty rack does not count")
}

func TestValidateProblems(t *testing.T) {
	srv := func(inv *Inventory, r, s int) *ServerSpec { return &inv.Racks[r].Servers[s] }
	for _, tc := range []struct {
		name  string
		edit  func(inv *Inventory)
		field string
		value string
		msg   string
	}{
		{"cluster missing", func(i *Inventory) { i.Cluster = "" }, "cluster", "", "required"},
		{"cluster not a label", func(i *Inventory) { i.Cluster = "Site_A" }, "cluster", "Site_A", "lowercase letters, digits and '-'"},
		{"cluster too long", func(i *Inventory) { i.Cluster = strings.Repeat("a", 64) }, "cluster", strings.Repeat("a", 64), "at most 63"},
		{"version missing", func(i *Inventory) { i.RuntimeVersion = "" }, "runtimeVersion", "", "required"},
		{"version bad", func(i *Inventory) { i.RuntimeVersion = "4.1" }, "runtimeVersion", "4.1", "major.minor.patch"},
		{"kubernetes missing", func(i *Inventory) { i.Kubernetes = KubernetesSpec{} }, "kubernetes", "", "required: kubeconfig"},
		{"kubernetes both", func(i *Inventory) { i.Kubernetes.KubeconfigSecretRef = &SecretRef{Namespace: "a", Name: "b"} }, "kubernetes", "/etc/rackroll/site-a.kubeconfig", "not both"},
		{"kubeconfig secret without name", func(i *Inventory) {
			i.Kubernetes = KubernetesSpec{KubeconfigSecretRef: &SecretRef{Namespace: "a"}}
		}, "kubernetes.kubeconfigSecretRef.name", "", "required"},
		{"credential without source", func(i *Inventory) { i.BMCCredentials["empty"] = CredentialRef{} }, "bmcCredentials.empty", "", "no credential source"},
		{"credential secret and env", func(i *Inventory) {
			i.BMCCredentials["both"] = CredentialRef{PasswordEnv: "P", SecretRef: &SecretRef{Namespace: "a", Name: "b"}}
		}, "bmcCredentials.both", "", "both secretRef and env/file"},
		{"credential env and file", func(i *Inventory) {
			i.BMCCredentials["both"] = CredentialRef{UsernameEnv: "U", PasswordEnv: "P", PasswordFile: "/p"}
		}, "bmcCredentials.both", "", "both passwordEnv and passwordFile"},
		{"credential without password", func(i *Inventory) { i.BMCCredentials["half"] = CredentialRef{UsernameEnv: "U"} }, "bmcCredentials.half", "", "no password source"},
		{"credential bad env name", func(i *Inventory) {
			i.BMCCredentials["bad"] = CredentialRef{UsernameEnv: "BMC-USER", PasswordEnv: "P"}
		}, "bmcCredentials.bad.usernameEnv", "BMC-USER", "environment variable name"},
		{"credential secret without namespace", func(i *Inventory) {
			i.BMCCredentials["s"] = CredentialRef{SecretRef: &SecretRef{Name: "b"}}
		}, "bmcCredentials.s.secretRef.namespace", "", "required"},
		{"no racks", func(i *Inventory) { i.Racks = nil }, "racks", "", "at least one rack"},
		{"rack name missing", func(i *Inventory) { i.Racks[1].Name = "" }, "racks[1].name", "", "required"},
		{"rack name bad", func(i *Inventory) { i.Racks[1].Name = "Rack 2" }, "racks[1].name", "Rack 2", "lowercase"},
		{"duplicate rack", func(i *Inventory) { i.Racks[2].Name = "rack1" }, "racks[2].name", "rack1", "duplicate rack name: already used at racks[0].name"},
		{"server name missing", func(i *Inventory) { srv(i, 0, 3).Name = "" }, "racks[0].servers[3].name", "", "required"},
		{"server name bad", func(i *Inventory) { srv(i, 0, 3).Name = "C_1" }, "racks[0].servers[3].name", "C_1", "lowercase"},
		{"duplicate server across racks", func(i *Inventory) { srv(i, 2, 3).Name = "rack1-c1" }, "racks[2].servers[3].name", "rack1-c1", "duplicate server name: already used at racks[0].servers[2].name"},
		{"duplicate node name", func(i *Inventory) { srv(i, 1, 2).NodeName = "rack1-c1" }, "racks[1].servers[2].nodeName", "rack1-c1", "duplicate node name: already used at racks[0].servers[2].nodeName"},
		{"bad node name", func(i *Inventory) { srv(i, 1, 2).NodeName = "Node_1" }, "racks[1].servers[2].nodeName", "Node_1", "Kubernetes node name"},
		{"role missing", func(i *Inventory) { srv(i, 0, 2).Role = "" }, "racks[0].servers[2].role", "", "allowed values are management, compute, kcp, kcp-spare"},
		{"role unknown", func(i *Inventory) { srv(i, 0, 2).Role = "controller" }, "racks[0].servers[2].role", "controller", "unknown role"},
		{"bmc address missing", func(i *Inventory) { srv(i, 1, 3).BMC.Address = "" }, "racks[1].servers[3].bmc.address", "", "required: the BMC's Redfish URL, e.g. https://10.1.0.11"},
		{"bmc address not a URL", func(i *Inventory) { srv(i, 1, 3).BMC.Address = "10.1.2.3" }, "racks[1].servers[3].bmc.address", "10.1.2.3", "http(s) URL"},
		{"bmc address wrong scheme", func(i *Inventory) { srv(i, 1, 3).BMC.Address = "ftp://10.1.2.3" }, "racks[1].servers[3].bmc.address", "ftp://10.1.2.3", "http(s) URL"},
		{"credentials missing", func(i *Inventory) { srv(i, 1, 3).BMC.Credentials = "" }, "racks[1].servers[3].bmc.credentials", "", "required: name an entry of bmcCredentials: default, vendor"},
		{"credentials unknown", func(i *Inventory) { srv(i, 1, 3).BMC.Credentials = "nope" }, "racks[1].servers[3].bmc.credentials", "nope", "unknown credentials: name an entry of bmcCredentials: default, vendor"},
		{"mac missing", func(i *Inventory) { srv(i, 0, 1).BootMACAddress = "" }, "racks[0].servers[1].bootMACAddress", "", "required"},
		{"mac bad", func(i *Inventory) { srv(i, 0, 1).BootMACAddress = "52-54-00-00-00-01" }, "racks[0].servers[1].bootMACAddress", "52-54-00-00-00-01", "not a MAC address"},
		{"mac duplicate ignoring case", func(i *Inventory) {
			srv(i, 0, 1).BootMACAddress = "AA:BB:CC:DD:EE:FF"
			srv(i, 2, 1).BootMACAddress = "aa:bb:cc:dd:ee:ff"
		}, "racks[2].servers[1].bootMACAddress", "aa:bb:cc:dd:ee:ff", "duplicate bootMACAddress: already used at racks[0].servers[1].bootMACAddress"},
		{"serial duplicate", func(i *Inventory) { srv(i, 2, 0).SerialNumber = "SN-1-11" }, "racks[2].servers[0].serialNumber", "SN-1-11", "duplicate serialNumber"},
		{"remediation negative", func(i *Inventory) { i.Remediation = &RemediationSpec{RebootTimeout: Duration(-1e9)} }, "remediation.rebootTimeout", "-1s", "positive duration"},
		{"remediation negative concurrency", func(i *Inventory) { i.Remediation = &RemediationSpec{MaxConcurrentCompute: -1} }, "remediation.maxConcurrentCompute", "-1", "1 or more"},
		{"too few management servers", func(i *Inventory) {
			srv(i, 0, 0).Role = RoleCompute
			srv(i, 0, 1).Role = RoleCompute
			srv(i, 1, 0).Role = RoleCompute
		}, "racks", "3 management servers", "a site with 3 racks needs at least 4 management servers (3 KCP + 1 spare): add 1"},
		{"too many kcp pins", func(i *Inventory) {
			srv(i, 0, 0).Role = RoleKCP
			srv(i, 0, 1).Role = RoleKCP
			srv(i, 1, 0).Role = RoleKCP
			srv(i, 2, 0).Role = RoleKCP
		}, "racks[2].servers[0].role", "kcp", "4 servers pinned as kcp but a site with 3 racks has 3 active KCPs: pin at most 3"},
		{"too many spare pins", func(i *Inventory) {
			srv(i, 0, 0).Role = RoleKCPSpare
			srv(i, 2, 1).Role = RoleKCPSpare
		}, "racks[2].servers[1].role", "kcp-spare", "2 servers pinned as kcp-spare but a site with 3 racks has 1 spare KCP: pin at most 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inv := site(3, 2, 2)
			tc.edit(inv)
			err := inv.ValidateForSite()
			ps := problems(t, err)
			require.Len(t, ps, 1, err.Error())
			assert.Equal(t, tc.field, ps[0].Field)
			assert.Equal(t, tc.value, ps[0].Value)
			assert.Contains(t, ps[0].Message, tc.msg)
		})
	}
}

func TestValidatePinsForFewRacks(t *testing.T) {
	two := site(2, 2, 1)
	two.Racks[0].Servers[0].Role = RoleKCP
	two.Racks[1].Servers[0].Role = RoleKCP
	ps := problems(t, two.Validate())
	require.Len(t, ps, 1)
	assert.Equal(t, "racks[1].servers[0].role", ps[0].Field)
	assert.Contains(t, ps[0].Message, "a site with 2 racks has 1 active KCP: pin at most 1")

	one := site(1, 3, 1)
	one.Racks[0].Servers[2].Role = RoleKCPSpare
	ps = problems(t, one.Validate())
	require.Len(t, ps, 1)
	assert.Contains(t, ps[0].Message, "a site with 1 rack has 0 spare KCPs: pin at most 0")

	small := site(1, 2, 4)
	ps = problems(t, small.Validate())
	require.Len(t, ps, 1)
	assert.Equal(t, "a site with 1 rack needs at least 3 management servers (3 KCP, no spare): add 1", ps[0].Message)
}

func TestValidateNoCredentialsDefined(t *testing.T) {
	inv := site(1, 3, 0)
	inv.BMCCredentials = nil
	ps := problems(t, inv.Validate())
	require.Len(t, ps, 3)
	assert.Contains(t, ps[0].Message, "bmcCredentials is empty: add an entry such as default:")
}
