package model

import (
	"encoding/json"
	"strings"

	"github.com/rackroll/rackroll/internal/firmware"
)

// Inventory is the site file: the cluster, how to reach its Kubernetes API
// and BMCs, and its racks of servers. Secrets are never inline, only
// references resolved inside activities.
type Inventory struct {
	Cluster        string                   `json:"cluster"`
	RuntimeVersion string                   `json:"runtimeVersion"`
	Kubernetes     KubernetesSpec           `json:"kubernetes"`
	BMCCredentials map[string]CredentialRef `json:"bmcCredentials"`
	// BMCCAFile is the CA bundle (PEM file) BMC certificates are verified
	// against when a server's bmc names none; empty: the system roots.
	BMCCAFile string `json:"bmcCAFile,omitempty"`
	// ControlPlane says how to reach the control plane's etcd, when the
	// site exposes it (controlplane.go).
	ControlPlane *ControlPlaneSpec `json:"controlPlane,omitempty"`
	Racks        []RackSpec        `json:"racks"`
	Remediation  *RemediationSpec  `json:"remediation,omitempty"`
	// Timeouts overrides the operator's time limits (timeouts.go).
	Timeouts *TimeoutsSpec `json:"timeouts,omitempty"`
	// Lab and LabAdmin belong to the simulated site (internal/lab reads
	// and checks them): the `lab:` section `starter lab up` reads, and the
	// admin endpoint it writes. The model carries them as written.
	Lab json.RawMessage `json:"lab,omitempty"`
	// Images says where runtime images live; {version} is replaced.
	Images ImagesSpec `json:"images,omitzero"`
	// LabAdmin: see Lab.
	LabAdmin json.RawMessage `json:"labAdmin,omitempty"`
	// Site, when present, routes BMC and Kubernetes activities to a site
	// worker (site.go).
	Site *SiteSpec `json:"site,omitempty"`
}

// DefaultImageURLTemplate is used when the inventory names no image
// location: the lab's BMCs read the version from the file name.
const DefaultImageURLTemplate = "http://images.rackroll.local/rackroll-{version}.iso"

// ImagesSpec locates the runtime images BMCs boot to reimage a server.
type ImagesSpec struct {
	URLTemplate string `json:"urlTemplate,omitempty"`
	// BootMode is the firmware mode the installer boots in (bootmode.go):
	// UEFI (the default) or Legacy; a server's bmc.bootMode overrides it.
	BootMode string `json:"bootMode,omitempty"`
	// SHA256 maps a version to its image's checksum (hex): the upgrade's
	// image preflight reads the image and compares.
	SHA256 map[string]string `json:"sha256,omitempty"`
	// Firmware maps a runtime version to the firmware it requires
	// (docs/firmware.md): per vendor/model, per component, the minimum
	// version, the image and how it is applied.
	Firmware map[string]firmware.Baseline `json:"firmware,omitempty"`
}

// ImageURL is the image of version v.
func (inv *Inventory) ImageURL(v string) string {
	t := inv.Images.URLTemplate
	if t == "" {
		t = DefaultImageURLTemplate
	}
	return strings.ReplaceAll(t, "{version}", v)
}

// KubernetesSpec says how to reach the site's API: a kubeconfig file, a
// Secret holding one, or (InCluster) the credentials of the pod the worker
// runs in, its ServiceAccount (deploy/).
type KubernetesSpec struct {
	Kubeconfig          string     `json:"kubeconfig,omitempty"`
	KubeconfigSecretRef *SecretRef `json:"kubeconfigSecretRef,omitempty"`
	InCluster           bool       `json:"inCluster,omitempty"`
	// Where a node shows the runtime version it booted (nodeversion.go):
	// by default the first major.minor.patch of status.nodeInfo.osImage;
	// else a regular expression over osImage with one capture group, or a
	// label an agent on the node keeps current.
	VersionLabel   string `json:"versionLabel,omitempty"`
	OSImagePattern string `json:"osImagePattern,omitempty"`
}

// SecretRef names a Kubernetes Secret.
type SecretRef struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
}

// CredentialRef says where a BMC's username and password come from:
// environment variables, files, or a Secret with username/password keys.
type CredentialRef struct {
	UsernameEnv  string     `json:"usernameEnv,omitempty"`
	PasswordEnv  string     `json:"passwordEnv,omitempty"`
	UsernameFile string     `json:"usernameFile,omitempty"`
	PasswordFile string     `json:"passwordFile,omitempty"`
	SecretRef    *SecretRef `json:"secretRef,omitempty"`
}

// RackSpec is one rack and its servers.
type RackSpec struct {
	Name    string       `json:"name"`
	Servers []ServerSpec `json:"servers"`
}

// ServerSpec is one bare-metal machine as the inventory describes it.
type ServerSpec struct {
	Name           string  `json:"name"`
	Role           Role    `json:"role"`
	NodeName       string  `json:"nodeName,omitempty"`
	BMC            BMCSpec `json:"bmc"`
	BootMACAddress string  `json:"bootMACAddress"`
	SerialNumber   string  `json:"serialNumber,omitempty"`
}

// BMCSpec is how to reach a server's BMC; Credentials names an entry of
// Inventory.BMCCredentials.
type BMCSpec struct {
	Address     string `json:"address"`
	Credentials string `json:"credentials"`
	// CAFile is the PEM bundle this BMC's certificate is verified against
	// (default: the inventory's bmcCAFile, else the system roots).
	CAFile             string `json:"caFile,omitempty"`
	InsecureSkipVerify bool   `json:"insecureSkipVerify,omitempty"`
	// BootMode is the mode this server boots the installer in (default:
	// the inventory's images.bootMode, else UEFI).
	BootMode string `json:"bootMode,omitempty"`
}

// ServerRef is a server with its place in the inventory.
type ServerRef struct {
	Rack string
	// Index is the server's position within its rack's list.
	Index  int
	Server ServerSpec
}

// NodeNameOf is the Kubernetes node name of s, which defaults to its name.
func NodeNameOf(s ServerSpec) string {
	if s.NodeName != "" {
		return s.NodeName
	}
	return s.Name
}

// Servers lists every server in inventory order.
func (inv *Inventory) Servers() []ServerRef {
	var out []ServerRef
	for _, r := range inv.Racks {
		for i, s := range r.Servers {
			if s.BMC.CAFile == "" {
				s.BMC.CAFile = inv.BMCCAFile
			}
			if s.BMC.BootMode == "" {
				s.BMC.BootMode = inv.Images.BootMode
			}
			out = append(out, ServerRef{Rack: r.Name, Index: i, Server: s})
		}
	}
	return out
}

// RackNames lists the names of racks that have servers, in natural order.
func (inv *Inventory) RackNames() []string {
	var out []string
	for _, r := range inv.Racks {
		if len(r.Servers) > 0 {
			out = append(out, r.Name)
		}
	}
	SortNatural(out)
	return out
}

// ComputeCounts maps each rack to its number of compute servers, the sizes
// UpdateStrategy.CheckRacks wants.
func (inv *Inventory) ComputeCounts() map[string]int {
	out := map[string]int{}
	for _, r := range inv.Racks {
		for _, s := range r.Servers {
			if s.Role == RoleCompute {
				out[r.Name]++
			}
		}
	}
	return out
}

// ControlPlaneSize is how many active KCPs and spares the rack-resiliency
// tables keep for a site with racks racks (counting racks that have servers).
func ControlPlaneSize(racks int) (active, spare int) {
	switch {
	case racks <= 0:
		return 0, 0
	case racks == 1:
		return 3, 0
	case racks == 2:
		return 1, 1
	}
	return 3, 1
}
