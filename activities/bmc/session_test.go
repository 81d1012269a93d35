package bmc

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stats reads the session counters under the lock.
func (b *miniBMC) stats() (created, deleted, live, basic int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.created, b.deleted, len(b.tokens), b.basic
}

func plainBMC(t *testing.T, sessions bool) (*miniBMC, Endpoint) {
	b := newMiniBMC(sessions)
	b.system("1", "On", []string{"On", "ForceOff", "GracefulShutdown", "ForceRestart"}, nil)
	srv := b.start(t, false)
	ep := testEndpoint
	ep.Address = srv.URL
	return b, ep
}

func TestOneSessionPerAttemptLoggedOutOnSuccess(t *testing.T) {
	b, ep := plainBMC(t, true)
	st, err := gofishActivities().ReadPower(context.Background(), ep)
	require.NoError(t, err)
	assert.Equal(t, "On", st.PowerState)
	created, deleted, live, basic := b.stats()
	assert.Equal(t, [4]int{1, 1, 0, 0}, [4]int{created, deleted, live, basic}, "created, deleted, live, basic")
}

func TestSessionLoggedOutOnError(t *testing.T) {
	b, ep := plainBMC(t, true)
	b.reject["/redfish/v1/Systems/1"] = 500
	_, err := gofishActivities().ReadPower(context.Background(), ep)
	appError(t, err, ErrTypeUnavailable, true)
	created, deleted, live, _ := b.stats()
	assert.Equal(t, [3]int{1, 1, 0}, [3]int{created, deleted, live})
}

func TestSessionLoggedOutOnCancel(t *testing.T) {
	b, ep := plainBMC(t, true)
	b.docs["/redfish/v1/Systems/1"]["PowerState"] = "Off" // and the reset changes nothing
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := gofishActivities().PowerOn(ctx, ep)
	require.Error(t, err)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	created, deleted, live, _ := b.stats()
	assert.Equal(t, [3]int{1, 1, 0}, [3]int{created, deleted, live}, "logged out with a fresh context")
}

func TestSessionLoggedOutOnPanic(t *testing.T) {
	b, ep := plainBMC(t, true)
	a := gofishActivities()
	require.Panics(t, func() {
		_ = a.do(context.Background(), ep, func(*run) error { panic("a bug") })
	})
	created, deleted, _, _ := b.stats()
	assert.Equal(t, [2]int{1, 1}, [2]int{created, deleted})
}

func TestLostSessionLogsInAgainOnce(t *testing.T) {
	b, ep := plainBMC(t, true)
	b.onPost = func(b *miniBMC, _ string, _ doc) (int, string) {
		b.expire = 1 // the BMC reboots right after the reset and forgets its sessions
		b.docs["/redfish/v1/Systems/1"]["PowerState"] = "Off"
		return 204, ""
	}
	require.NoError(t, gofishActivities().PowerOff(context.Background(), PowerOffInput{Endpoint: ep, SkipShutdown: true}))
	created, deleted, live, _ := b.stats()
	assert.Equal(t, [3]int{2, 1, 0}, [3]int{created, deleted, live}, "a second session, logged out in the end")
}

func TestPersistent401FailsAfterOneReLogin(t *testing.T) {
	b, ep := plainBMC(t, true)
	b.reject["/redfish/v1/Systems/1"] = 401 // e.g. the account lost its privilege
	_, err := gofishActivities().ReadPower(context.Background(), ep)
	appError(t, err, ErrTypeAuth, false)
	created, deleted, _, _ := b.stats()
	assert.Equal(t, 2, created, "one re-login, no loop")
	assert.Equal(t, 1, deleted, "the session still alive is logged out")
}

func TestBasicAuthOnlyWithoutSessionService(t *testing.T) {
	b, ep := plainBMC(t, false)
	_, err := gofishActivities().ReadPower(context.Background(), ep)
	require.NoError(t, err)
	created, _, _, basic := b.stats()
	assert.Zero(t, created)
	assert.Positive(t, basic)
}

func TestWrongPasswordWithSessions(t *testing.T) {
	b, ep := plainBMC(t, true)
	b.pass = "something-else"
	_, err := gofishActivities().ReadPower(context.Background(), ep)
	appError(t, err, ErrTypeAuth, false)
}

func TestPlainHTTPWithoutSchemeIsAConfigError(t *testing.T) {
	b, ep := plainBMC(t, true)
	host := strings.TrimPrefix(ep.Address, "http://")
	ep.Address = host
	a := gofishActivities()
	_, err := a.ReadPower(context.Background(), ep)
	ae := appError(t, err, ErrTypeConfig, false)
	assert.Contains(t, ae.Error(), "write http://"+host+" explicitly, or enable TLS")
	created, _, _, _ := b.stats()
	assert.Zero(t, created)

	ep.Address = "https://" + host
	_, err = a.ReadPower(context.Background(), ep)
	ae = appError(t, err, ErrTypeConfig, false)
	assert.Contains(t, ae.Error(), "does not speak TLS")
}

func TestCertificateVerification(t *testing.T) {
	b := newMiniBMC(true)
	b.system("1", "On", nil, nil)
	srv := b.start(t, true)
	ep := testEndpoint
	ep.Address = srv.URL
	a := gofishActivities()

	_, err := a.ReadPower(context.Background(), ep)
	ae := appError(t, err, ErrTypeConfig, false)
	assert.Contains(t, ae.Error(), "set caFile for this BMC")
	assert.NotContains(t, ae.Error(), "insecureSkipVerify")

	dir := t.TempDir()
	other := httptestCA(t, dir, "other.pem", nil)
	ep.CAFile = other
	_, err = a.ReadPower(context.Background(), ep)
	ae = appError(t, err, ErrTypeConfig, false)
	assert.Contains(t, ae.Error(), "does not verify against caFile "+other)

	ep.CAFile = httptestCA(t, dir, "lab.pem", srv.Certificate().Raw)
	st, err := a.ReadPower(context.Background(), ep)
	require.NoError(t, err)
	assert.Equal(t, "On", st.PowerState)
}

// httptestCA writes der, or a CA of its own making, as a PEM file.
func httptestCA(t *testing.T, dir, name string, der []byte) string {
	t.Helper()
	if der == nil {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		require.NoError(t, err)
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "another CA"},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true,
			BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
		der, err = x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
		require.NoError(t, err)
	}
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600))
	return p
}
