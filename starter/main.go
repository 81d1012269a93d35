// Command starter is rackroll's CLI: it validates inventories, starts and
// steers workflows, and runs the lab. See `starter --help`.
package main

import (
	"errors"
	"fmt"
	"os"
)

// Exit codes scripts can rely on.
const (
	exitOK     = 0
	exitError  = 1 // bad input, connection trouble, a rejected request
	exitFailed = 2 // the operation ran and failed
	exitPaused = 3 // the operation paused and waits for an operator
)

// exitError carries an exit code through cobra.
type codedError struct {
	code int
	err  error
}

func (e *codedError) Error() string { return e.err.Error() }
func (e *codedError) Unwrap() error { return e.err }

func withCode(code int, err error) error { return &codedError{code: code, err: err} }

func main() {
	root := newRoot()
	if err := root.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		var ce *codedError
		if errors.As(err, &ce) {
			os.Exit(ce.code)
		}
		os.Exit(exitError)
	}
}
