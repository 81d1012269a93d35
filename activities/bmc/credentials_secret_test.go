package bmc

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/rackroll/rackroll/activities/bmc/bmcclient"
	"github.com/rackroll/rackroll/internal/lab/redfish/redfishtest"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// A secretRef in the inventory reaches the activity, which reads the
// Secret's username and password keys; every failure names the Secret and
// says what to do, never a value.
func TestSecretResolver(t *testing.T) {
	ref := RefOf(model.CredentialRef{SecretRef: &model.SecretRef{Namespace: "rackroll", Name: "bmc"}})
	require.Equal(t, CredentialRef{SecretNamespace: "rackroll", SecretName: "bmc"}, ref)
	secret := func(data map[string][]byte, err error) SecretResolver {
		return SecretResolver{Secrets: func(_ context.Context, ns, name string) (map[string][]byte, error) {
			require.Equal(t, "rackroll/bmc", ns+"/"+name)
			return data, err
		}}
	}
	gr := schema.GroupResource{Resource: "secrets"}
	ctx := context.Background()

	// The password is made per run (redfishtest.Password): none lives in the code.
	c, err := secret(map[string][]byte{"username": []byte("operator\n"), "password": []byte(redfishtest.Password)}, nil).Resolve(ctx, ref)
	require.NoError(t, err)
	require.Equal(t, bmcclient.Credentials{Username: "operator", Password: redfishtest.Password}, c)

	for _, tc := range []struct {
		name      string
		r         SecretResolver
		want      string
		transient bool
	}{
		{"no cluster", SecretResolver{}, "is read by the worker from the cluster that holds it, and this worker found none: run it in a pod of that cluster (its ServiceAccount needs get on the Secret), or outside one give it --kubeconfig or $KUBECONFIG", false},
		{"missing", secret(nil, apierrors.NewNotFound(gr, "bmc")), "does not exist: create it with keys username and password", false},
		{"forbidden", secret(nil, apierrors.NewForbidden(gr, "bmc", errors.New("no"))), "grant its ServiceAccount get on secrets in rackroll", false},
		{"apiserver away", secret(nil, errors.New("connection refused")), "read the BMC credentials Secret rackroll/bmc: connection refused", true},
		{"no password", secret(map[string][]byte{"username": []byte("operator")}, nil), "has no password key", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.r.Resolve(ctx, ref)
			require.ErrorContains(t, err, "rackroll/bmc")
			require.ErrorContains(t, err, tc.want)
			var f *failure
			require.Equal(t, tc.transient, errors.As(err, &f) && f.kind == kindTransient)
			require.NotContains(t, err.Error(), redfishtest.Password)
		})
	}
}

// Any other reference is read from the environment or files, as before.
func TestSecretResolverFallsBackToEnvAndFiles(t *testing.T) {
	r := SecretResolver{Files: EnvFileResolver{LookupEnv: func(k string) (string, bool) {
		return map[string]string{"U": "admin", "P": redfishtest.Password}[k], true
	}}}
	c, err := r.Resolve(context.Background(), RefOf(model.CredentialRef{UsernameEnv: "U", PasswordEnv: "P"}))
	require.NoError(t, err)
	require.Equal(t, bmcclient.Credentials{Username: "admin", Password: redfishtest.Password}, c)
}

// A Secret the worker cannot read now fails the step retryably; one that
// is missing fails it for good, before any request to the BMC.
func TestSecretFailureKindsReachTheStep(t *testing.T) {
	ep := Endpoint{BMM: "rack1-c1", Address: "https://192.0.2.1", Credentials: CredentialRef{SecretNamespace: "rackroll", SecretName: "bmc"}}
	dialed := false
	for _, tc := range []struct {
		err       error
		retryable bool
	}{
		{errors.New("connection refused"), true},
		{apierrors.NewNotFound(schema.GroupResource{Resource: "secrets"}, "bmc"), false},
	} {
		a := &Activities{
			Resolver: SecretResolver{Secrets: func(context.Context, string, string) (map[string][]byte, error) { return nil, tc.err }},
			Dial: func(context.Context, bmcclient.Endpoint, bmcclient.Credentials, time.Duration) (bmcclient.Client, error) {
				dialed = true
				return nil, errors.New("unreachable")
			},
		}
		_, err := a.open(context.Background(), ep)
		var ae *temporal.ApplicationError
		require.ErrorAs(t, err, &ae)
		require.Equal(t, tc.retryable, !ae.NonRetryable(), "%v", err)
		require.Contains(t, err.Error(), "rack1-c1")
	}
	require.False(t, dialed, "no BMC request without credentials")
}
