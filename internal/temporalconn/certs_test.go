package temporalconn

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// pki is a throwaway CA with a server and a client certificate, written as
// PEM files the way an operator would hand them to the worker.
type pki struct {
	CA                *x509.Certificate
	CAPath            string
	ServerCert        tls.Certificate
	ClientCert        *x509.Certificate
	ClientCertPath    string
	ClientKeyPath     string
	ServerName        string
	OtherCAPath       string // a CA that signed nothing here
	caKey             *ecdsa.PrivateKey
	dir               string
	serialForNextCert int64
}

func newPKI(t *testing.T) *pki {
	t.Helper()
	p := &pki{dir: t.TempDir(), ServerName: "temporal.rackroll.test", serialForNextCert: 1}
	p.CA, p.caKey = p.selfSigned(t, "rackroll test CA")
	p.CAPath = p.writePEM(t, "ca.pem", "CERTIFICATE", p.CA.Raw)
	other, _ := p.selfSigned(t, "some other CA")
	p.OtherCAPath = p.writePEM(t, "other-ca.pem", "CERTIFICATE", other.Raw)

	srv, srvKey := p.issue(t, &x509.Certificate{Subject: pkix.Name{CommonName: p.ServerName}, DNSNames: []string{p.ServerName},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}})
	p.ServerCert = tls.Certificate{Certificate: [][]byte{srv.Raw}, PrivateKey: srvKey, Leaf: srv}

	var cliKey *ecdsa.PrivateKey
	p.ClientCert, cliKey = p.issue(t, &x509.Certificate{Subject: pkix.Name{CommonName: "rackroll-worker"},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
	p.ClientCertPath = p.writePEM(t, "client.pem", "CERTIFICATE", p.ClientCert.Raw)
	der, err := x509.MarshalECPrivateKey(cliKey)
	require.NoError(t, err)
	p.ClientKeyPath = p.writePEM(t, "client-key.pem", "EC PRIVATE KEY", der)
	return p
}

func (p *pki) selfSigned(t *testing.T, cn string) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	return cert, key
}

func (p *pki) issue(t *testing.T, tmpl *x509.Certificate) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	p.serialForNextCert++
	tmpl.SerialNumber = big.NewInt(p.serialForNextCert)
	tmpl.NotBefore, tmpl.NotAfter = time.Now().Add(-time.Hour), time.Now().Add(24*time.Hour)
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	der, err := x509.CreateCertificate(rand.Reader, tmpl, p.CA, &key.PublicKey, p.caKey)
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	return cert, key
}

func (p *pki) writePEM(t *testing.T, name, typ string, der []byte) string {
	t.Helper()
	path := filepath.Join(p.dir, name)
	require.NoError(t, os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600))
	return path
}
