package kubeapi

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"path/filepath"

	"github.com/rackroll/rackroll/internal/lab/pki"
)

// labPKI is the key material one apiserver run needs. Generated per Start
// so a lab never shares a CA or token with another run.
type labPKI struct {
	caFile, certFile, keyFile string // serving CA and serving pair
	saKeyFile, saPubFile      string // service-account token signing
	tokenFile, token          string // bearer token of the admin user
	caPEM                     []byte
}

// writePKI generates a throwaway CA, a serving certificate for 127.0.0.1
// and localhost signed by it, a service-account key pair and an admin
// bearer token in the system:masters group, and writes them under dir.
func writePKI(dir string) (*labPKI, error) {
	p := &labPKI{
		certFile:  filepath.Join(dir, "apiserver.crt"),
		keyFile:   filepath.Join(dir, "apiserver.key"),
		saKeyFile: filepath.Join(dir, "sa.key"),
		saPubFile: filepath.Join(dir, "sa.pub"),
		tokenFile: filepath.Join(dir, "tokens.csv"),
	}
	ca, err := pki.NewCA(dir, "ca.crt", "rackroll-lab-ca")
	if err != nil {
		return nil, err
	}
	p.caFile, p.caPEM = ca.CertFile, ca.PEM
	srv, err := ca.Issue("kube-apiserver", []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		[]net.IP{net.ParseIP("127.0.0.1"), net.ParseIP("10.0.0.1")},
		[]string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc"})
	if err != nil {
		return nil, err
	}
	saKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tok := make([]byte, 24)
	if _, err := rand.Read(tok); err != nil {
		return nil, err
	}
	p.token = hex.EncodeToString(tok)
	return p, writeFiles(map[string][]byte{
		p.certFile:  srv.CertPEM(),
		p.keyFile:   srv.KeyPEM(),
		p.saKeyFile: pki.KeyPEM(saKey),
		p.saPubFile: pki.PublicKeyPEM(&saKey.PublicKey),
		// token,user,uid,"groups": system:masters is allowed everything by
		// RBAC's bootstrap policy, so no role bindings need creating.
		p.tokenFile: fmt.Appendf(nil, "%s,rackroll-admin,rackroll-admin,\"system:masters\"\n", p.token),
	})
}

// writeFiles writes each file readable by its owner only.
func writeFiles(files map[string][]byte) error {
	for path, b := range files {
		if err := os.WriteFile(path, b, 0o600); err != nil {
			return err
		}
	}
	return nil
}
