package workflows

import "errors"

// errorsAs is errors.As, named for the workflow files that use it.
func errorsAs(err error, target any) bool { return errors.As(err, target) }
