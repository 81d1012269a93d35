package lab

import (
	"encoding/json"
	"os"

	"github.com/rackroll/rackroll/internal/model"
	"sigs.k8s.io/yaml"
)

// OutInventory is the same site pointing at the lab: https:// BMC
// addresses verified against the lab's BMC CA (bmcCAFile; never
// insecureSkipVerify), the lab's kubeconfig (the site's version source
// kept), the files holding the lab's BMC credentials, and the admin
// endpoint for `starter lab fault`. Every other command runs against it
// unchanged.
func (l *Lab) OutInventory() *model.Inventory {
	out := *l.Inventory
	// The site's version source stays: it says what its images show.
	out.Kubernetes = model.KubernetesSpec{Kubeconfig: l.Kube.Kubeconfig(),
		VersionLabel: l.Inventory.Kubernetes.VersionLabel, OSImagePattern: l.Inventory.Kubernetes.OSImagePattern}
	out.BMCCAFile = l.BMCCAFile
	out.ControlPlane = &model.ControlPlaneSpec{Etcd: l.EtcdSpec()}
	out.LabAdmin, _ = json.Marshal(l.AdminURL) // a string always marshals
	// The lab's image server stands in for the site's.
	if out.Images.URLTemplate == "" {
		out.Images.URLTemplate = l.images.url + "/rackroll-{version}.iso"
	}
	out.BMCCredentials = map[string]model.CredentialRef{}
	for n, c := range l.creds {
		out.BMCCredentials[n] = model.CredentialRef{UsernameFile: c.userFile, PasswordFile: c.file}
	}
	// The site as racked now: a server of lab.unracked appears once racked.
	l.mu.Lock()
	defer l.mu.Unlock()
	out.Racks = nil
	present := map[string]bool{}
	for _, r := range l.Inventory.Racks {
		nr := model.RackSpec{Name: r.Name}
		for _, s := range r.Servers {
			if l.unracked[s.Name] {
				continue
			}
			s.BMC.Address = l.machines[s.Name].URL
			s.BMC.CAFile = "" // the site's bmcCAFile: the lab signed every BMC's certificate
			s.BMC.InsecureSkipVerify = false
			nr.Servers = append(nr.Servers, s)
			present[s.Name] = true
		}
		if len(nr.Servers) > 0 {
			out.Racks = append(out.Racks, nr)
			present[r.Name] = true
		}
	}
	if sec, err := SectionOf(l.Inventory); err == nil && sec.Lab != nil && len(sec.Lab.Unracked) > 0 {
		out.Lab, _ = json.Marshal(sec.Lab.only(present)) // a Spec always marshals
	}
	return &out
}

// WriteOutInventory writes OutInventory as YAML to path.
func (l *Lab) WriteOutInventory(path string) error {
	b, err := yaml.Marshal(l.OutInventory())
	if err != nil {
		return err
	}
	header := []byte("# Written by `starter lab up`: the site below points at the running lab.\n")
	return os.WriteFile(path, append(header, b...), 0o644)
}
