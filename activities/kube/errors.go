package kube

import (
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
)

func nodeNotFound(node string, cause error) error {
	return temporal.NewNonRetryableApplicationError(
		fmt.Sprintf("node %q not found: check the BMM's nodeName in the inventory, or whether the node was deleted", node),
		ErrNodeNotFound, cause)
}

func configError(err error) error {
	return temporal.NewNonRetryableApplicationError(err.Error(), ErrConfig, err)
}

func invalidInput(format string, args ...any) error {
	return temporal.NewNonRetryableApplicationError(fmt.Sprintf(format, args...), ErrInvalidInput, nil)
}
