package kube

import (
	"errors"
	"fmt"

	"go.temporal.io/sdk/temporal"
)

// Application error types a workflow can match on.
const (
	// ErrNodeNotFound: the node does not exist (non-retryable).
	ErrNodeNotFound = "NodeNotFound"
	// ErrNodeNotReady: WaitNodeReady gave up; the details hold the last NodeStatus.
	ErrNodeNotReady = "NodeNotReady"
	// ErrConfig: the cluster client could not be built (non-retryable:
	// retrying does not fix a kubeconfig).
	ErrConfig = "KubeConfig"
	// ErrInvalidInput: the input is unusable (non-retryable).
	ErrInvalidInput = "InvalidInput"
	// ErrSourceUnavailable: the ClientSource could not answer for now (the
	// ledger that names the kubeconfig did not answer): retried.
	ErrSourceUnavailable = "KubeSourceUnavailable"
)

// SourceUnavailable marks a ClientSource error as passing: the activity is
// retried (within its step's limit) instead of failing as a bad kubeconfig.
func SourceUnavailable(err error) error { return sourceUnavailable{err} }

type sourceUnavailable struct{ error }

func (e sourceUnavailable) Unwrap() error { return e.error }

func nodeNotFound(node string, cause error) error {
	return temporal.NewNonRetryableApplicationError(
		fmt.Sprintf("node %q not found: check the BMM's nodeName in the inventory, or whether the node was deleted", node),
		ErrNodeNotFound, cause)
}

func configError(err error) error {
	var passing sourceUnavailable
	if errors.As(err, &passing) {
		return temporal.NewApplicationError(err.Error(), ErrSourceUnavailable, err)
	}
	return temporal.NewNonRetryableApplicationError(err.Error(), ErrConfig, err)
}

func invalidInput(format string, args ...any) error {
	return temporal.NewNonRetryableApplicationError(fmt.Sprintf(format, args...), ErrInvalidInput, nil)
}
