package kubeapi

import (
	"crypto/x509"
	"net"
	"path/filepath"

	"github.com/rackroll/rackroll/internal/lab/pki"
)

// EtcdTLS names the files of the lab's etcd PKI: its own CA, one serving
// pair for every member (they all listen on 127.0.0.1) and one client pair,
// which the apiserver and rackroll's worker both present (etcd runs with
// --client-cert-auth, so nothing without it gets in).
type EtcdTLS struct {
	CAFile         string `json:"caFile"`
	ServerCertFile string `json:"serverCertFile"`
	ServerKeyFile  string `json:"serverKeyFile"`
	CertFile       string `json:"certFile"` // client
	KeyFile        string `json:"keyFile"`  // client
}

// writeEtcdPKI generates the etcd CA and pairs under dir.
func writeEtcdPKI(dir string) (EtcdTLS, error) {
	t := EtcdTLS{
		ServerCertFile: filepath.Join(dir, "etcd-server.crt"),
		ServerKeyFile:  filepath.Join(dir, "etcd-server.key"),
		CertFile:       filepath.Join(dir, "etcd-client.crt"),
		KeyFile:        filepath.Join(dir, "etcd-client.key"),
	}
	ca, err := pki.NewCA(dir, "etcd-ca.crt", "rackroll-lab-etcd-ca")
	if err != nil {
		return t, err
	}
	t.CAFile = ca.CertFile
	// etcd uses its serving pair as a client too (member-to-member gRPC
	// gateway), so it carries both usages.
	srv, err := ca.Issue("etcd-server", []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		[]net.IP{net.ParseIP("127.0.0.1")}, []string{"localhost"})
	if err != nil {
		return t, err
	}
	cli, err := ca.Issue("rackroll-etcd-client", []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, nil, nil)
	if err != nil {
		return t, err
	}
	return t, writeFiles(map[string][]byte{
		t.ServerCertFile: srv.CertPEM(),
		t.ServerKeyFile:  srv.KeyPEM(),
		t.CertFile:       cli.CertPEM(),
		t.KeyFile:        cli.KeyPEM(),
	})
}
