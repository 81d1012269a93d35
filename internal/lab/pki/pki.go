// Package pki makes the lab's throwaway certificate authorities and the
// serving certificates they sign, so lab services speak TLS that clients
// verify against a CA file instead of skipping verification.
package pki

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// CA is a certificate authority made for one lab run. Its certificate is
// written to CertFile (PEM) for clients; the key stays in memory.
type CA struct {
	CertFile string
	PEM      []byte

	cert *x509.Certificate
	key  *ecdsa.PrivateKey

	mu     sync.Mutex
	serial int64
}

// NewCA makes a CA named cn and writes its certificate to dir/file.
func NewCA(dir, file, cn string) (*CA, error) {
	now := time.Now()
	tmpl := template(now, 1, cn, x509.KeyUsageCertSign|x509.KeyUsageDigitalSignature)
	tmpl.BasicConstraintsValid, tmpl.IsCA = true, true
	key, der, err := issue(tmpl, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("pki: make CA %s: %w", cn, err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	ca := &CA{CertFile: filepath.Join(dir, file), cert: cert, key: key, serial: 1,
		PEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}
	if err := os.WriteFile(ca.CertFile, ca.PEM, 0o644); err != nil {
		return nil, fmt.Errorf("pki: write CA certificate: %w", err)
	}
	return ca, nil
}

// Pool is a cert pool holding only this CA, for clients in tests.
func (ca *CA) Pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(ca.cert)
	return p
}

// ServerCert issues a serving certificate for cn valid for the given IP
// addresses and DNS names (127.0.0.1 when both are empty).
func (ca *CA) ServerCert(cn string, ips []net.IP, dns []string) (tls.Certificate, error) {
	if len(ips) == 0 && len(dns) == 0 {
		ips = []net.IP{net.IPv4(127, 0, 0, 1)}
	}
	l, err := ca.Issue(cn, []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, ips, dns)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{l.DER}, PrivateKey: l.Key}, nil
}

// Leaf is a certificate the CA issued, and its key.
type Leaf struct {
	DER []byte
	Key *ecdsa.PrivateKey
}

// Issue signs a certificate for cn with the given extended usages (server,
// client or both), valid for ips and dns.
func (ca *CA) Issue(cn string, ext []x509.ExtKeyUsage, ips []net.IP, dns []string) (Leaf, error) {
	ca.mu.Lock()
	ca.serial++
	serial := ca.serial
	ca.mu.Unlock()
	tmpl := template(time.Now(), serial, cn, x509.KeyUsageDigitalSignature)
	tmpl.ExtKeyUsage = ext
	tmpl.IPAddresses, tmpl.DNSNames = ips, dns
	key, der, err := issue(tmpl, ca.cert, ca.key)
	if err != nil {
		return Leaf{}, fmt.Errorf("pki: issue %s: %w", cn, err)
	}
	return Leaf{DER: der, Key: key}, nil
}

// CertPEM is the certificate, PEM-encoded.
func (l Leaf) CertPEM() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: l.DER})
}

// KeyPEM is the key, PEM-encoded (SEC 1).
func (l Leaf) KeyPEM() []byte { return KeyPEM(l.Key) }

// KeyPEM encodes an EC private key (SEC 1).
func KeyPEM(k *ecdsa.PrivateKey) []byte {
	der, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		panic(err) // only fails for unsupported curves; P-256 is supported
	}
	return pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der})
}

// PublicKeyPEM encodes an EC public key (PKIX).
func PublicKeyPEM(k *ecdsa.PublicKey) []byte {
	der, err := x509.MarshalPKIXPublicKey(k)
	if err != nil {
		panic(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
}

// template is a certificate valid from an hour before now for ten years.
func template(now time.Time, serial int64, cn string, usage x509.KeyUsage) *x509.Certificate {
	return &x509.Certificate{
		SerialNumber: big.NewInt(serial),
		Subject:      pkix.Name{CommonName: cn},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(10 * 365 * 24 * time.Hour),
		KeyUsage:     usage,
	}
}

// issue generates a key and a certificate for it from tmpl, signed by
// parentKey (nil parent: self-signed).
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
