package kube

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestForbiddenNamesThePermissionAndIsFinal(t *testing.T) {
	denied := apierrors.NewForbidden(schema.GroupResource{Resource: "nodes"}, "rack1-c1",
		errors.New(`User "system:serviceaccount:rackroll:rackroll-worker" cannot delete resource "nodes" in API group "" at the cluster scope`))
	for _, err := range []error{
		fmt.Errorf("delete node rack1-c1: %w", denied),
		// kubectl drain's eviction errors keep only the text.
		fmt.Errorf(`error when evicting pods/"web-1" -n "tenant": %v`, apierrors.NewForbidden(schema.GroupResource{Resource: "pods/eviction"}, "web-1",
			errors.New(`User "x" cannot create resource "pods/eviction" in API group "" in the namespace "tenant"`))),
	} {
		got := Forbidden(err)
		var app *temporal.ApplicationError
		require.True(t, errors.As(got, &app), "%v", got)
		require.Equal(t, ErrForbidden, app.Type())
		require.True(t, app.NonRetryable())
		require.Contains(t, app.Error(), "is forbidden: User ")
		require.Contains(t, app.Error(), "deploy/clusterrole.yaml")
		require.Same(t, got, Forbidden(got), "converted once")
	}
	other := fmt.Errorf("delete node rack1-c1: %w", apierrors.NewNotFound(schema.GroupResource{Resource: "nodes"}, "rack1-c1"))
	require.Same(t, other, Forbidden(other))
	require.NoError(t, Forbidden(nil))
}
