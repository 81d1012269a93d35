package model

import (
	"fmt"
	"net/url"
)

// ControlPlaneSpec is how rackroll reaches the site's control plane beyond
// the Kubernetes API.
type ControlPlaneSpec struct {
	// Etcd, when set, makes every control-plane disruption etcd-aware:
	// member health, alarms and quorum are checked first, leadership moved
	// and the member removed before a KCP's disk is wiped.
	Etcd *EtcdSpec `json:"etcd,omitempty"`
}

// EtcdSpec locates the control plane's etcd cluster. The client TLS
// material is referenced by file path, never inline: the worker reads it.
type EtcdSpec struct {
	Endpoints []string `json:"endpoints"`
	CAFile    string   `json:"caFile,omitempty"`
	CertFile  string   `json:"certFile,omitempty"`
	KeyFile   string   `json:"keyFile,omitempty"`
}

func (c *ControlPlaneSpec) validate(e *ValidationError) {
	if c == nil || c.Etcd == nil {
		return
	}
	et := c.Etcd
	if len(et.Endpoints) == 0 {
		e.Add("controlPlane.etcd.endpoints", "", "required: the etcd client URLs, e.g. https://10.0.0.11:2379")
	}
	for i, ep := range et.Endpoints {
		u, err := url.Parse(ep)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			e.Add(fmt.Sprintf("controlPlane.etcd.endpoints[%d]", i), ep, "must be an http(s) URL with a host, e.g. https://10.0.0.11:2379")
		}
	}
	if (et.CertFile == "") != (et.KeyFile == "") {
		e.Add("controlPlane.etcd", et.CertFile+et.KeyFile, "certFile and keyFile go together: set both or neither")
	}
}
