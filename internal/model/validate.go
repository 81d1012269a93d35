package model

import (
	"fmt"
	"sort"
)

// Validate checks what the inventory means and reports every problem at
// once. The kubernetes section may be empty because `starter lab up` fills it
// in; ValidateForSite requires it. The lab's fields are the lab's to check
// (internal/lab).
func (inv *Inventory) Validate() error { return inv.validate(false) }

// ValidateForSite is Validate for an inventory that commands will run
// against: it must say where the kubeconfig is.
func (inv *Inventory) ValidateForSite() error { return inv.validate(true) }

func (inv *Inventory) validate(site bool) error {
	var e ValidationError
	switch {
	case inv.Cluster == "":
		e.Add("cluster", "", "required: the cluster's name, e.g. site-a")
	case !isDNSLabel(inv.Cluster):
		e.Add("cluster", inv.Cluster, "must be lowercase letters, digits and '-' (at most 63), starting and ending with a letter or digit")
	}
	if inv.RuntimeVersion == "" {
		e.Add("runtimeVersion", "", "required: the version the servers run now, e.g. 4.1.2")
	} else if _, err := ParseVersion(inv.RuntimeVersion); err != nil {
		e.Add("runtimeVersion", inv.RuntimeVersion, err.Error())
	}
	inv.Kubernetes.validate(&e, site)
	validateCredentials(&e, inv.BMCCredentials)
	inv.validateRacks(&e)
	inv.validateControlPlane(&e)
	inv.ControlPlane.validate(&e)
	if inv.Remediation != nil {
		inv.Remediation.validate(&e)
	}
	if inv.Timeouts != nil {
		inv.Timeouts.validate(&e)
	}
	inv.Images.validate(&e)
	return e.Err()
}

func (k KubernetesSpec) validate(e *ValidationError, site bool) {
	switch {
	case k.InCluster && k.Kubeconfig != "":
		e.Add("kubernetes.kubeconfig", k.Kubeconfig, "not allowed with inCluster: true (the worker then uses its pod's ServiceAccount): set one of kubeconfig, kubeconfigSecretRef or inCluster")
	case k.InCluster && k.KubeconfigSecretRef != nil:
		e.Add("kubernetes.kubeconfigSecretRef", k.KubeconfigSecretRef.Namespace+"/"+k.KubeconfigSecretRef.Name,
			"not allowed with inCluster: true (the worker then uses its pod's ServiceAccount): set one of kubeconfig, kubeconfigSecretRef or inCluster")
	case k.Kubeconfig != "" && k.KubeconfigSecretRef != nil:
		e.Add("kubernetes", k.Kubeconfig, "set kubeconfig or kubeconfigSecretRef, not both")
	case k.Kubeconfig == "" && k.KubeconfigSecretRef == nil && !k.InCluster && site:
		e.Add("kubernetes", "", "required: kubeconfig (a file path), kubeconfigSecretRef {namespace, name} or inCluster: true")
	}
	if k.KubeconfigSecretRef != nil {
		k.KubeconfigSecretRef.validate(e, "kubernetes.kubeconfigSecretRef")
	}
	k.NodeVersion().validate(e, "kubernetes.versionLabel", "kubernetes.osImagePattern")
}

func (s SecretRef) validate(e *ValidationError, field string) {
	if s.Namespace == "" {
		e.Add(field+".namespace", "", "required: the Secret's namespace")
	}
	if s.Name == "" {
		e.Add(field+".name", "", "required: the Secret's name")
	}
}

func validateCredentials(e *ValidationError, creds map[string]CredentialRef) {
	names := make([]string, 0, len(creds))
	for n := range creds {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		creds[n].validate(e, "bmcCredentials."+n)
	}
}

// validate accepts either a secretRef alone, or one username source and one
// password source among env and file.
func (c CredentialRef) validate(e *ValidationError, field string) {
	envOrFile := c.UsernameEnv != "" || c.PasswordEnv != "" || c.UsernameFile != "" || c.PasswordFile != ""
	if c.SecretRef != nil {
		if envOrFile {
			e.Add(field, "", "both secretRef and env/file sources are set: use one")
		}
		c.SecretRef.validate(e, field+".secretRef")
		return
	}
	if !envOrFile {
		e.Add(field, "", "no credential source: set usernameEnv and passwordEnv, usernameFile and passwordFile, or secretRef")
		return
	}
	for _, p := range []struct{ what, env, file string }{
		{"username", c.UsernameEnv, c.UsernameFile},
		{"password", c.PasswordEnv, c.PasswordFile},
	} {
		switch {
		case p.env != "" && p.file != "":
			e.Addf(field, "", "both %sEnv and %sFile are set: use one", p.what, p.what)
		case p.env == "" && p.file == "":
			e.Addf(field, "", "no %s source: set %sEnv or %sFile", p.what, p.what, p.what)
		case p.env != "" && !envName.MatchString(p.env):
			e.Add(field+"."+p.what+"Env", p.env, "must be an environment variable name such as BMC_PASSWORD")
		}
	}
}

// validateControlPlane checks that placement can work: enough management
// servers, and pins that fit the rack-resiliency tables.
func (inv *Inventory) validateControlPlane(e *ValidationError) {
	racks := len(inv.RackNames())
	if racks == 0 {
		return
	}
	active, spare := ControlPlaneSize(racks)
	limits := map[Role]int{RoleKCP: active, RoleKCPSpare: spare}
	nouns := map[Role]string{RoleKCP: "active KCP", RoleKCPSpare: "spare KCP"}
	totals := map[Role]int{}
	pool := 0
	for _, r := range inv.Servers() {
		totals[r.Server.Role]++
		if r.Server.Role.IsManagementPool() {
			pool++
		}
	}
	seen := map[Role]int{}
	for i, rack := range inv.Racks {
		for j, s := range rack.Servers {
			limit, pin := limits[s.Role]
			if !pin {
				continue
			}
			// Report once, at the first pin beyond the limit.
			if seen[s.Role]++; seen[s.Role] == limit+1 {
				e.Addf(fmt.Sprintf("racks[%d].servers[%d].role", i, j), string(s.Role),
					"%s pinned as %s but a site with %s has %s: pin at most %d",
					plural(totals[s.Role], "server", "servers"), s.Role, plural(racks, "rack", "racks"),
					plural(limit, nouns[s.Role], nouns[s.Role]+"s"), limit)
			}
		}
	}
	if need := active + spare; pool < need {
		why := fmt.Sprintf("%d KCP + %d spare", active, spare)
		if spare == 0 {
			why = fmt.Sprintf("%d KCP, no spare", active)
		}
		e.Addf("racks", plural(pool, "management server", "management servers"),
			"a site with %s needs at least %d management servers (%s): add %d",
			plural(racks, "rack", "racks"), need, why, need-pool)
	}
}
