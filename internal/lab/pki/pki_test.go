package pki

import (
	"crypto/x509"
	"net"
	"os"
	"testing"
)

func TestServerCertVerifiesAgainstTheCAFileOnly(t *testing.T) {
	ca, err := NewCA(t.TempDir(), "ca.crt", "test-ca")
	if err != nil {
		t.Fatal(err)
	}
	pemBytes, err := os.ReadFile(ca.CertFile)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pemBytes) {
		t.Fatal("the CA file holds no certificate")
	}
	cert, err := ca.ServerCert("bmc", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(cert.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: pool, DNSName: "127.0.0.1"}); err != nil {
		t.Errorf("verify against the CA file: %v", err)
	}
	if !leaf.IPAddresses[0].Equal(net.IPv4(127, 0, 0, 1)) {
		t.Errorf("IP SAN = %v, want 127.0.0.1", leaf.IPAddresses)
	}
	other, err := NewCA(t.TempDir(), "ca.crt", "other-ca")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: other.Pool()}); err == nil {
		t.Error("a certificate verified against another lab's CA")
	}
	if _, err := leaf.Verify(x509.VerifyOptions{}); err == nil {
		t.Error("a lab certificate verified against the system roots")
	}
}
