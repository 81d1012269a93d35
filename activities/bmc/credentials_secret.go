package bmc

import (
	"context"
	"fmt"
	"strings"

	"github.com/rackroll/rackroll/activities/bmc/bmcclient"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// NoManagementHint says how a worker finds the cluster it reads Secrets
// from (kube.FindManagement), for the errors of a worker that found none.
const NoManagementHint = "run it in a pod of that cluster (its ServiceAccount needs get on the Secret), or outside one give it --kubeconfig or $KUBECONFIG (docs/install.md#a-worker-outside-a-pod)"

// SecretResolver resolves a reference to a Kubernetes Secret (keys
// username and password) through Secrets, and any other reference through
// Files (EnvFileResolver when nil). Secrets is nil where the worker has no
// cluster to read Secrets from (it does not run in a pod).
type SecretResolver struct {
	Secrets func(ctx context.Context, namespace, name string) (map[string][]byte, error)
	Files   Resolver
}

// Resolve returns the credentials; errors name the Secret and the key,
// never a value. A Secret that is missing, or that the worker may not
// read, is the inventory's or the deployment's to fix; any other failure
// to read it passes (the step is tried again).
func (r SecretResolver) Resolve(ctx context.Context, ref CredentialRef) (bmcclient.Credentials, error) {
	if ref.SecretName == "" {
		files := r.Files
		if files == nil {
			files = EnvFileResolver{}
		}
		return files.Resolve(ctx, ref)
	}
	id := ref.SecretNamespace + "/" + ref.SecretName
	if r.Secrets == nil {
		return bmcclient.Credentials{}, fmt.Errorf("the BMC credentials Secret %s is read by the worker from the cluster that holds it, and this worker found none: %s; or mount the Secret as files and set usernameFile and passwordFile", id, NoManagementHint)
	}
	data, err := r.Secrets(ctx, ref.SecretNamespace, ref.SecretName)
	switch {
	case apierrors.IsNotFound(err):
		return bmcclient.Credentials{}, fmt.Errorf("the BMC credentials Secret %s does not exist: create it with keys username and password", id)
	case apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err):
		return bmcclient.Credentials{}, fmt.Errorf("the worker may not read the BMC credentials Secret %s (%v): grant its ServiceAccount get on secrets in %s", id, err, ref.SecretNamespace)
	case err != nil:
		return bmcclient.Credentials{}, &failure{kindTransient, fmt.Sprintf("read the BMC credentials Secret %s: %v", id, err)}
	}
	var c bmcclient.Credentials
	for _, k := range []struct {
		key string
		to  *string
	}{{"username", &c.Username}, {"password", &c.Password}} {
		*k.to = strings.TrimRight(string(data[k.key]), "\r\n")
		if *k.to == "" {
			return bmcclient.Credentials{}, fmt.Errorf("the BMC credentials Secret %s has no %s key (or it is empty)", id, k.key)
		}
	}
	return c, nil
}
