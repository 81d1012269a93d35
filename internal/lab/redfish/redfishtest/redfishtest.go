// Package redfishtest serves one emulated BMC for the tests that drive it
// as a client would (gofish in internal/lab/redfish, the BMC activities in
// activities/bmc): rack1-c1 on runtime 4.1.2, with timings fast enough for
// a unit test and a password made per run. The BMC plays the default
// profile (a realistic iDRAC9) unless an option names another.
package redfishtest

import (
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/lab/pki"
	"github.com/rackroll/rackroll/internal/lab/redfish"
)

// The machine behind the BMC.
const (
	BMM      = "rack1-c1"
	Username = "root"
)

// Password is made per run: no credential lives in the code, and a
// password that leaks into a message is easy to search for.
var Password = func() string {
	b := make([]byte, 12)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return "pw-" + hex.EncodeToString(b)
}()

// Profile is an option that makes the BMC play the named profile
// (redfish.ProfileNames).
func Profile(name string) func(*redfish.Config) {
	return func(c *redfish.Config) { c.Profile = name }
}

// Helpful plays the lab's original, kinder-than-vendors BMC (OS version in
// SoftwareImage, reset tasks that end when the OS runs).
var Helpful = Profile("helpful")

// Server is an emulated BMC serving on URL, its events in Log. CAFile is
// the PEM file of the CA that signed its certificate (StartTLS only).
type Server struct {
	BMC    *redfish.BMC
	Log    *events.Log
	URL    string
	CAFile string
}

// Start serves a BMC over plain HTTP until the test ends; mutate adjusts
// its config first.
func Start(t testing.TB, mutate ...func(*redfish.Config)) *Server {
	t.Helper()
	s := newServer(t, mutate)
	url, err := s.BMC.Serve("")
	if err != nil {
		t.Fatalf("serve the emulated BMC: %v", err)
	}
	s.URL = url
	return s
}

// StartTLS is Start over HTTPS with a certificate for 127.0.0.1 signed by a
// CA made for the test; clients verify against CAFile.
func StartTLS(t testing.TB, mutate ...func(*redfish.Config)) *Server {
	t.Helper()
	s := newServer(t, mutate)
	ca, err := pki.NewCA(t.TempDir(), "bmc-ca.crt", "rackroll-test-bmc-ca")
	if err != nil {
		t.Fatal(err)
	}
	cert, err := ca.ServerCert(BMM+"-bmc", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	url, err := s.BMC.ServeTLS("", cert)
	if err != nil {
		t.Fatalf("serve the emulated BMC: %v", err)
	}
	s.URL, s.CAFile = url, ca.CertFile
	return s
}

func newServer(t testing.TB, mutate []func(*redfish.Config)) *Server {
	s := &Server{Log: events.New(nil)}
	cfg := redfish.Config{
		BMM: BMM, Rack: "rack1", Username: Username, Password: Password,
		RuntimeVersion: "4.1.2", SerialNumber: "SN-0101", BootMAC: "52:54:00:00:01:01",
		Timings: redfish.Timings{PowerTransition: 5 * time.Millisecond, Boot: 5 * time.Millisecond, Reimage: 20 * time.Millisecond, Media: 5 * time.Millisecond,
			Firmware: 20 * time.Millisecond, BMCReset: 30 * time.Millisecond},
		Events: s.Log,
	}
	for _, m := range mutate {
		m(&cfg)
	}
	s.BMC = redfish.New(cfg)
	t.Cleanup(s.BMC.Close)
	return s
}

// TrustingOnly is an HTTP client that trusts only the CA in caFile: a test
// that reaches a BMC this way proves its certificate, not just its answer.
func TrustingOnly(t testing.TB, caFile string) *http.Client {
	t.Helper()
	pem, err := os.ReadFile(caFile)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		t.Fatalf("no certificate in %s", caFile)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{RootCAs: pool}
	return &http.Client{Transport: tr, Timeout: 10 * time.Second}
}
