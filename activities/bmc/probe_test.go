package bmc

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/lab/pki"
	"github.com/rackroll/rackroll/internal/lab/redfish"
	"github.com/rackroll/rackroll/internal/lab/redfish/redfishtest"
	"github.com/rackroll/rackroll/internal/sitecheck"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// probeLab probes an emulated BMC over HTTPS as site check would, with the
// credentials in files (no environment involved).
func probeLab(t *testing.T, srv *redfishtest.Server, password, caFile string) map[string]sitecheck.Item {
	t.Helper()
	dir := t.TempDir()
	user, pass := filepath.Join(dir, "user"), filepath.Join(dir, "pass")
	require.NoError(t, os.WriteFile(user, []byte(redfishtest.Username), 0o600))
	require.NoError(t, os.WriteFile(pass, []byte(password), 0o600))
	ep := Endpoint{BMM: redfishtest.BMM, Address: srv.URL, CAFile: caFile,
		Credentials: CredentialRef{UsernameFile: user, PasswordFile: pass}}
	before := srv.BMC.State()
	items := Probe(context.Background(), ep, EnvFileResolver{}, 10*time.Second, nil)
	after := srv.BMC.State()
	assert.Equal(t, before.Power, after.Power, "a probe never changes the power")
	assert.Equal(t, before.ReimageCount, after.ReimageCount)
	assert.Equal(t, 0, srv.BMC.Sessions(), "the probe's session is logged out")
	out := map[string]sitecheck.Item{}
	for _, it := range items {
		out[it.Check] = it
	}
	return out
}

func TestProbeEveryProfileIsAllGood(t *testing.T) {
	for _, name := range redfish.ProfileNames() {
		if name == "nomedia" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			srv := redfishtest.StartTLS(t, redfishtest.Profile(name))
			items := probeLab(t, srv, testPassword, srv.CAFile)
			for _, check := range []string{"BMC reachable", "TLS verified", "login", "sessions", "System found", "virtual CD", "boot target", "boot mode", "reset types", "graceful shutdown", "firmware"} {
				it, ok := items[check]
				require.True(t, ok, "no %q finding: %+v", check, items)
				assert.True(t, it.OK || check == "login" && name == "noauth", "%s: %+v", check, it)
			}
			assert.NotContains(t, items["firmware"].Detail, "not shown", "BIOS and BMC versions are read")
			_, warned := items["authentication"]
			assert.Equal(t, name == "noauth", warned, "only a BMC serving without credentials is warned")
		})
	}
}

func TestProbeNamesEachProblem(t *testing.T) {
	t.Run("wrong CA", func(t *testing.T) {
		srv := redfishtest.StartTLS(t)
		other, err := pki.NewCA(t.TempDir(), "other.crt", "another-ca")
		require.NoError(t, err)
		items := probeLab(t, srv, testPassword, other.CertFile)
		it := items["TLS verified"]
		assert.False(t, it.OK)
		assert.True(t, it.Blocker)
		assert.Contains(t, it.Detail, other.CertFile)
		assert.Contains(t, it.Fix, "caFile")
		_, loggedIn := items["login"]
		assert.False(t, loggedIn, "nothing is tried past a failed TLS check")
	})
	t.Run("wrong password", func(t *testing.T) {
		srv := redfishtest.StartTLS(t)
		items := probeLab(t, srv, "not-the-password", srv.CAFile)
		assert.True(t, items["BMC reachable"].OK)
		it := items["login"]
		assert.False(t, it.OK)
		assert.True(t, it.Blocker)
		assert.Contains(t, it.Fix, "password")
	})
	t.Run("serves without credentials", func(t *testing.T) {
		srv := redfishtest.StartTLS(t, redfishtest.Profile("noauth"))
		items := probeLab(t, srv, testPassword, srv.CAFile)
		login := items["login"]
		assert.False(t, login.OK, "a read without credentials proves nothing about them")
		assert.False(t, login.Blocker)
		assert.Contains(t, login.Detail, "not checked")
		assert.NotContains(t, login.Detail, "credentials accepted")
		it := items["authentication"]
		assert.False(t, it.OK)
		assert.False(t, it.Blocker, "a warning: rackroll works, the site is exposed")
		assert.Contains(t, it.Detail, "the BMC of "+redfishtest.BMM+" at "+srv.URL+" serves the System without credentials")
		assert.Contains(t, it.Fix, "authentication")
	})
	t.Run("no virtual media", func(t *testing.T) {
		srv := redfishtest.StartTLS(t, redfishtest.Profile("nomedia"))
		items := probeLab(t, srv, testPassword, srv.CAFile)
		assert.True(t, items["System found"].OK)
		it := items["virtual CD"]
		assert.False(t, it.OK)
		assert.True(t, it.Blocker)
		assert.Contains(t, it.Fix, "virtual CD")
	})
}

func TestProbeProvesBasicAuthWithARead(t *testing.T) {
	b, ep := plainBMC(t, false) // no SessionService: nothing checks the password at dial
	b.pass = "the-right-one"
	items := map[string]sitecheck.Item{}
	for _, it := range Probe(context.Background(), ep, activitiesWith(newFake()).Resolver, 5*time.Second, nil) {
		items[it.Check] = it
	}
	it, ok := items["login"]
	require.True(t, ok, "%+v", items)
	assert.True(t, it.Blocker, "a wrong password is a blocker: %+v", it)
	assert.Contains(t, it.Detail, "HTTP 401")
	assert.NotContains(t, it.Detail, "{", "a clean description, not the BMC's JSON body")
	assert.Contains(t, it.Fix, "password")
	_, found := items["System found"]
	assert.False(t, found, "nothing is judged past a refused login")

	b.pass = testPassword
	items = map[string]sitecheck.Item{}
	for _, it := range Probe(context.Background(), ep, activitiesWith(newFake()).Resolver, 5*time.Second, nil) {
		items[it.Check] = it
	}
	assert.True(t, items["login"].OK)
	assert.Contains(t, items["login"].Detail, "basic auth")
}
