package kube

import (
	"errors"
	"strings"

	"go.temporal.io/sdk/temporal"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// ErrForbidden: the API server's RBAC denied the worker's identity a
// request (non-retryable: a missing permission does not come back by
// itself, and a retried step would only hide it until its limit).
const ErrForbidden = "KubeForbidden"

// forbiddenHint follows RBAC's own message, which names the user, verb,
// resource and group.
const forbiddenHint = ": the worker's Kubernetes identity lacks this permission; grant it " +
	"(deploy/clusterrole.yaml lists what rackroll needs) and run `starter site check`"

// Forbidden turns an error that carries an RBAC denial into a
// non-retryable ErrForbidden whose message says which permission is
// missing; other errors are returned as they are. kubectl's drain formats
// eviction errors with %v, so a denial is also recognised by its text.
func Forbidden(err error) error {
	if err == nil {
		return nil
	}
	var app *temporal.ApplicationError
	if errors.As(err, &app) && app.Type() == ErrForbidden {
		return err
	}
	if !apierrors.IsForbidden(err) && !strings.Contains(err.Error(), "is forbidden: User ") {
		return err
	}
	return temporal.NewNonRetryableApplicationError(err.Error()+forbiddenHint, ErrForbidden, err)
}
