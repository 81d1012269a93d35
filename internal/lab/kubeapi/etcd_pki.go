package kubeapi

import (
	"crypto/x509"
	"encoding/pem"
	"net"
	"os"
	"path/filepath"
	"time"
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
		CAFile:         filepath.Join(dir, "etcd-ca.crt"),
		ServerCertFile: filepath.Join(dir, "etcd-server.crt"),
		ServerKeyFile:  filepath.Join(dir, "etcd-server.key"),
		CertFile:       filepath.Join(dir, "etcd-client.crt"),
		KeyFile:        filepath.Join(dir, "etcd-client.key"),
	}
	now := time.Now()
	ca := certTemplate(now, 1, "rackroll-lab-etcd-ca", x509.KeyUsageCertSign|x509.KeyUsageDigitalSignature)
	ca.BasicConstraintsValid, ca.IsCA = true, true
	caKey, caDER, err := issue(ca, nil, nil)
	if err != nil {
		return t, err
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		return t, err
	}
	srv := certTemplate(now, 2, "etcd-server", x509.KeyUsageDigitalSignature|x509.KeyUsageKeyEncipherment)
	// etcd uses its serving pair as a client too (member-to-member gRPC
	// gateway), so it carries both usages.
	srv.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}
	srv.DNSNames = []string{"localhost"}
	srv.IPAddresses = []net.IP{net.ParseIP("127.0.0.1")}
	srvKey, srvDER, err := issue(srv, caCert, caKey)
	if err != nil {
		return t, err
	}
	cli := certTemplate(now, 3, "rackroll-etcd-client", x509.KeyUsageDigitalSignature|x509.KeyUsageKeyEncipherment)
	cli.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	cliKey, cliDER, err := issue(cli, caCert, caKey)
	if err != nil {
		return t, err
	}
	files := map[string][]byte{
		t.CAFile:         pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		t.ServerCertFile: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srvDER}),
		t.ServerKeyFile:  mustECPEM(srvKey),
		t.CertFile:       pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cliDER}),
		t.KeyFile:        mustECPEM(cliKey),
	}
	for path, b := range files {
		if err := os.WriteFile(path, b, 0o600); err != nil {
			return t, err
		}
	}
	return t, nil
}
