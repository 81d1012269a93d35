package bmcclient

import (
	"errors"
	"fmt"
	"net/http"
)

// The errors a Client returns, so the activities can decide what a retry
// can do without knowing the Redfish library behind it. Anything else (the
// network, TLS, a garbled body) is the transport's own error.

// Kind says why a client failed a request on its own.
type Kind int

const (
	// Rejected: the BMC lacks what the request needs (no ComputerSystem,
	// no UpdateService, an action it does not offer): retrying cannot help.
	Rejected Kind = iota + 1
	// Config: the endpoint is wrong (address, CA file, TLS where the BMC
	// speaks plain HTTP, a certificate that does not verify).
	Config
)

// Failure is an error the client decided itself, not an answer of the
// BMC's.
type Failure struct {
	Kind Kind
	Msg  string
}

func (f *Failure) Error() string { return f.Msg }

// StatusError is a request the BMC answered with an HTTP error status.
// Code and Message are the Redfish error's, "" when the body had none;
// Error is the client's own text, which may quote the whole body (callers
// look there for message ids such as MissingAction).
type StatusError struct {
	Status        int // 0: the client saw no status
	Code, Message string
	// SessionCap: the answer refused a login because the BMC holds as many
	// sessions as it allows. The client knows how its vendors say it; the
	// refusal is transient (a session frees up), whatever the status.
	SessionCap bool
	// Extended are the answer's @Message.ExtendedInfo messages
	// ("MessageId: Message"): where vendors say what went wrong when
	// Message is generic (Supermicro's "See ExtendedInfo").
	Extended []string
	Err      error // what the client saw; nil: Error is made of the fields
}

func (e *StatusError) Error() string {
	if e.Err != nil {
		return e.Err.Error()
	}
	return fmt.Sprintf("%d: %s", e.Status, e.Message)
}

func (e *StatusError) Unwrap() error { return e.Err }

// PartialError is a collection read some of whose members failed: each
// failure by the member's link.
type PartialError struct {
	Failures map[string]error
	Err      error // what the client saw; nil: Error counts the failures
}

func (e *PartialError) Error() string {
	if e.Err != nil {
		return e.Err.Error()
	}
	return fmt.Sprintf("%d members of the collection failed", len(e.Failures))
}
func (e *PartialError) Unwrap() error { return e.Err }

// StatusOf is the HTTP status of the BMC's answer err carries; 0 when it
// carries none.
func StatusOf(err error) int {
	var se *StatusError
	if errors.As(err, &se) {
		return se.Status
	}
	return 0
}

// NotFound: the BMC answered 404.
func NotFound(err error) bool { return StatusOf(err) == http.StatusNotFound }

// Unauthorized: the BMC answered 401, also to a member of a collection.
func Unauthorized(err error) bool {
	var pe *PartialError
	if errors.As(err, &pe) {
		for _, e := range pe.Failures {
			if Unauthorized(e) {
				return true
			}
		}
	}
	return StatusOf(err) == http.StatusUnauthorized
}

// SessionCapped: the BMC refused a login because it holds as many sessions
// as it allows (see StatusError.SessionCap).
func SessionCapped(err error) bool {
	var se *StatusError
	return errors.As(err, &se) && se.SessionCap
}
