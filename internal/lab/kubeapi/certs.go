package kubeapi

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// pki is the key material one apiserver run needs. Generated per Start so a
// lab never shares a CA or token with another run.
type pki struct {
	caFile, certFile, keyFile string // serving CA and serving pair
	saKeyFile, saPubFile      string // service-account token signing
	tokenFile, token          string // bearer token of the admin user
	caPEM                     []byte
}

// writePKI generates a throwaway CA, a serving certificate for 127.0.0.1
// and localhost signed by it, a service-account key pair and an admin
// bearer token in the system:masters group, and writes them under dir.
func writePKI(dir string) (*pki, error) {
	p := &pki{
		caFile:    filepath.Join(dir, "ca.crt"),
		certFile:  filepath.Join(dir, "apiserver.crt"),
		keyFile:   filepath.Join(dir, "apiserver.key"),
		saKeyFile: filepath.Join(dir, "sa.key"),
		saPubFile: filepath.Join(dir, "sa.pub"),
		tokenFile: filepath.Join(dir, "tokens.csv"),
	}
	now := time.Now()
	ca := certTemplate(now, 1, "rackroll-lab-ca", x509.KeyUsageCertSign|x509.KeyUsageDigitalSignature)
	ca.BasicConstraintsValid, ca.IsCA = true, true
	caKey, caDER, err := issue(ca, nil, nil)
	if err != nil {
		return nil, err
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, err
	}
	srv := certTemplate(now, 2, "kube-apiserver", x509.KeyUsageDigitalSignature|x509.KeyUsageKeyEncipherment)
	srv.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
	srv.DNSNames = []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc"}
	srv.IPAddresses = []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP("10.0.0.1")}
	srvKey, srvDER, err := issue(srv, caCert, caKey)
	if err != nil {
		return nil, err
	}
	saKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	p.caPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})
	tok := make([]byte, 24)
	if _, err := rand.Read(tok); err != nil {
		return nil, err
	}
	p.token = hex.EncodeToString(tok)

	files := map[string][]byte{
		p.caFile:    p.caPEM,
		p.certFile:  pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srvDER}),
		p.keyFile:   mustECPEM(srvKey),
		p.saKeyFile: mustECPEM(saKey),
		p.saPubFile: mustPubPEM(&saKey.PublicKey),
		// token,user,uid,"groups": system:masters is allowed everything by
		// RBAC's bootstrap policy, so no role bindings need creating.
		p.tokenFile: fmt.Appendf(nil, "%s,rackroll-admin,rackroll-admin,\"system:masters\"\n", p.token),
	}
	for path, b := range files {
		if err := os.WriteFile(path, b, 0o600); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// certTemplate is a certificate valid from an hour before now for ten years.
func certTemplate(now time.Time, serial int64, cn string, usage x509.KeyUsage) *x509.Certificate {
	return &x509.Certificate{
		SerialNumber: big.NewInt(serial),
		Subject:      pkix.Name{CommonName: cn},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(10 * 365 * 24 * time.Hour),
		KeyUsage:     usage,
	}
}

// issue generates a key and a certificate for it from tmpl, signed by
// parentKey (nil parent: self-signed, for the CA).
func issue(tmpl, parent *x509.Certificate, parentKey *ecdsa.PrivateKey) (*ecdsa.PrivateKey, []byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	if parent == nil {
		parent, parentKey = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	return key, der, err
}

func mustECPEM(k *ecdsa.PrivateKey) []byte {
	der, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		panic(err) // only fails for unsupported curves; P-256 is supported
	}
	return pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der})
}

func mustPubPEM(k *ecdsa.PublicKey) []byte {
	der, err := x509.MarshalPKIXPublicKey(k)
	if err != nil {
		panic(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
}
