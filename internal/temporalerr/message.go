// Package temporalerr says what went wrong in an error that came through the
// Temporal SDK, for workflows, activities and the CLI alike.
package temporalerr

import (
	"errors"

	"go.temporal.io/sdk/temporal"
)

// Message strips the SDK's wrapping (activity, child workflow, update,
// workflow execution errors) so the operator reads the reason as its author
// wrote it: the message of the first ApplicationError in err's chain, else
// the innermost error's text.
func Message(err error) string {
	var app *temporal.ApplicationError
	if errors.As(err, &app) {
		return app.Message()
	}
	for u := errors.Unwrap(err); u != nil; u = errors.Unwrap(u) {
		err = u
	}
	return err.Error()
}
