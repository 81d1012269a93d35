package bmc

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rackroll/rackroll/activities/bmc/bmcclient"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTransientErrorsAreRetriedInside(t *testing.T) {
	f := newFake()
	f.errs["System"] = []error{httpErr(500), httpErr(503)}
	_, err := activitiesWith(f).ReadPower(context.Background(), testEndpoint)
	require.NoError(t, err)
	assert.Equal(t, 3, f.count("System"))
}

func TestTransientErrorsExhaustedAreRetryable(t *testing.T) {
	f := newFake()
	f.errs["System"] = []error{httpErr(503), httpErr(503), httpErr(503), httpErr(503)}
	_, err := activitiesWith(f).ReadPower(context.Background(), testEndpoint)
	ae := appError(t, err, ErrTypeUnavailable, true)
	assert.Contains(t, ae.Error(), "https://10.1.0.11")
	assert.Contains(t, ae.Error(), "HTTP 503", "the Redfish error is shortened to status and message")
	assert.Equal(t, 3, f.count("System"))
}

func TestAuthFailureIsNotRetried(t *testing.T) {
	f := newFake()
	f.errs["System"] = []error{httpErr(401)}
	_, err := activitiesWith(f).ReadPower(context.Background(), testEndpoint)
	ae := appError(t, err, ErrTypeAuth, false)
	assert.Contains(t, ae.Error(), "credentials")
	assert.Equal(t, 1, f.count("System"))
}

func TestConnectFailureIsRetryable(t *testing.T) {
	a := activitiesWith(newFake())
	a.Dial = func(context.Context, bmcclient.Endpoint, bmcclient.Credentials, time.Duration) (bmcclient.Client, error) {
		return nil, errors.New("dial tcp 10.1.0.11:443: connect: connection refused")
	}
	_, err := a.PowerOn(context.Background(), testEndpoint)
	ae := appError(t, err, ErrTypeUnavailable, true)
	assert.Contains(t, ae.Error(), "connect")
}

func TestMissingCredentialsReference(t *testing.T) {
	f := newFake()
	ep := testEndpoint
	ep.Credentials = CredentialRef{UsernameEnv: "BMC_USER", PasswordEnv: "NOPE"}
	_, err := activitiesWith(f).PowerOn(context.Background(), ep)
	ae := appError(t, err, ErrTypeConfig, false)
	assert.Contains(t, ae.Error(), "NOPE")
	assert.Empty(t, f.calls)

	ep.Credentials = CredentialRef{UsernameEnv: "BMC_USER"}
	_, err = activitiesWith(f).PowerOn(context.Background(), ep)
	assert.Contains(t, appError(t, err, ErrTypeConfig, false).Error(), "passwordEnv or passwordFile")
}

func TestAddressWithCredentialsRefused(t *testing.T) {
	ep := testEndpoint
	ep.Address = "https://root:" + testPassword + "@10.1.0.11"
	_, err := activitiesWith(newFake()).PowerOn(context.Background(), ep)
	appError(t, err, ErrTypeConfig, false) // also checks the password is not echoed
}

func TestEnvFileResolver(t *testing.T) {
	dir := t.TempDir()
	user, pass := filepath.Join(dir, "user"), filepath.Join(dir, "pass")
	require.NoError(t, os.WriteFile(user, []byte("root\n"), 0o600))
	require.NoError(t, os.WriteFile(pass, []byte(testPassword+"\n"), 0o600))
	t.Setenv("RR_TEST_BMC_USER", "admin")

	c, err := EnvFileResolver{}.Resolve(context.Background(), CredentialRef{UsernameFile: user, PasswordFile: pass})
	require.NoError(t, err)
	assert.Equal(t, bmcclient.Credentials{Username: "root", Password: testPassword}, c)
	assert.NotContains(t, c.String(), testPassword)

	c, err = EnvFileResolver{}.Resolve(context.Background(), CredentialRef{UsernameEnv: "RR_TEST_BMC_USER", PasswordFile: pass})
	require.NoError(t, err)
	assert.Equal(t, "admin", c.Username)

	_, err = EnvFileResolver{}.Resolve(context.Background(), CredentialRef{UsernameEnv: "RR_TEST_BMC_USER", PasswordFile: filepath.Join(dir, "missing")})
	assert.ErrorContains(t, err, "missing")
	_, err = EnvFileResolver{}.Resolve(context.Background(), CredentialRef{UsernameEnv: "A", UsernameFile: user})
	assert.ErrorContains(t, err, "keep one")
}

func TestClassify(t *testing.T) {
	for code, want := range map[int]kind{
		0: kindTransient, 500: kindTransient, 503: kindTransient, 429: kindTransient, 408: kindTransient,
		401: kindAuth, 403: kindAuth, 412: kindPrecondition, 409: kindConflict, 400: kindRejected, 404: kindRejected,
	} {
		assert.Equal(t, want, classify(httpErr(code)), code)
	}
	assert.Equal(t, kindTransient, classify(errors.New("EOF")))
	assert.Equal(t, kindAuth, classify(&stepError{"x", httpErr(401)}))
}

// A refusal is quoted in the BMC's own words, @Message.ExtendedInfo's
// too where the message is generic or missing.
func TestDescribeQuotesTheBMC(t *testing.T) {
	se := &bmcclient.StatusError{Status: 400, Code: "Base.1.0.GeneralError", Message: "Missing ImageURI and/or Targets."}
	assert.Equal(t, "HTTP 400 Base.1.0.GeneralError: Missing ImageURI and/or Targets.", describe(se))
	se = &bmcclient.StatusError{Status: 400, Code: "Base.v1_4_0.GeneralError", Message: "A general error has occurred. See ExtendedInfo for more information.",
		Extended: []string{"SMC.1.0.OemFirmwareAlreadyInUpdateMode: Firmware is already in update mode."}}
	assert.Equal(t, "HTTP 400 Base.v1_4_0.GeneralError: A general error has occurred. See ExtendedInfo for more information. (SMC.1.0.OemFirmwareAlreadyInUpdateMode: Firmware is already in update mode.)", describe(se))
	assert.True(t, updateBusy(se), "Supermicro's busy is seen in its ExtendedInfo")
	se = &bmcclient.StatusError{Status: 409, Extended: []string{"The host must be off."}}
	assert.Equal(t, "HTTP 409: The host must be off.", describe(se))
}
