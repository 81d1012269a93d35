package bmc

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/rackroll/rackroll/activities/bmc/bmcclient"
	"go.temporal.io/sdk/temporal"
)

// Error types of the temporal.ApplicationErrors the activities return, for
// retry policies (NonRetryableErrorTypes) and workflows to match on.
const (
	ErrTypeUnavailable   = "BMCUnavailable"     // retryable: 5xx, timeouts, dropped connections
	ErrTypeConflict      = "BMCConflict"        // retryable: 409, 412 that kept coming, a reset superseded
	ErrTypeRejected      = "BMCRequestRejected" // non-retryable: the BMC refused the request (other 4xx)
	ErrTypeAuth          = "BMCAuthFailed"      // non-retryable: 401/403, fix the credentials
	ErrTypeConfig        = "BMCConfig"          // non-retryable: bad endpoint, input or credentials reference
	ErrTypePowerFailed   = "PowerActionFailed"  // non-retryable: the BMC accepted a power action that failed
	ErrTypeReimageFailed = "ReimageFailed"      // non-retryable: the install failed; the machine has no bootable OS
	// ErrTypeNoEffect: non-retryable: the BMC accepted a request but never
	// showed its effect (a reset ignored, an image that does not mount).
	ErrTypeNoEffect = "BMCNoEffect"
	// ErrTypeWrongImage: non-retryable: after the insert the virtual CD
	// shows a different image (another file or host); the message names it.
	ErrTypeWrongImage = "BMCWrongImage"
	// Firmware updates, non-retryable, each message naming the component
	// and what was seen: the update's task ended in Exception (or was
	// killed); it did not finish within its limit (stuck, or a BMC that
	// stayed away); it finished but the inventory does not show the
	// required version after the resets the update needs.
	ErrTypeFirmwareException = "FirmwareTaskException"
	ErrTypeFirmwareStuck     = "FirmwareTaskStuck"
	ErrTypeFirmwareUnchanged = "FirmwareUnchanged"
	// ErrTypeWatchStopped: retryable, benign: WatchReimage was cancelled
	// (its caller stopped it, or its worker shut down).
	ErrTypeWatchStopped = "WatchStopped"
)

type kind int

const (
	kindTransient kind = iota
	kindPrecondition
	kindConflict
	kindRejected
	kindAuth
	kindConfig
	kindPowerFailed
	kindReimageFailed
	kindNoEffect
	kindWrongImage
	kindFirmwareException
	kindFirmwareStuck
	kindFirmwareUnchanged
	kindAccountLimit
)

var kindTypes = map[kind]string{
	kindTransient:         ErrTypeUnavailable,
	kindPrecondition:      ErrTypeConflict,
	kindConflict:          ErrTypeConflict,
	kindRejected:          ErrTypeRejected,
	kindAuth:              ErrTypeAuth,
	kindConfig:            ErrTypeConfig,
	kindPowerFailed:       ErrTypePowerFailed,
	kindReimageFailed:     ErrTypeReimageFailed,
	kindNoEffect:          ErrTypeNoEffect,
	kindWrongImage:        ErrTypeWrongImage,
	kindFirmwareException: ErrTypeFirmwareException,
	kindFirmwareStuck:     ErrTypeFirmwareStuck,
	kindFirmwareUnchanged: ErrTypeFirmwareUnchanged,
	kindAccountLimit:      ErrTypeAccountLimit,
}

func (k kind) retryable() bool { return k <= kindConflict }

// failure is an error the activities decide on themselves.
type failure struct {
	kind kind
	msg  string
}

func (f *failure) Error() string { return f.msg }

// stepError names the step that failed.
type stepError struct {
	step string
	err  error
}

func (e *stepError) Error() string { return e.step + ": " + describe(e.err) }
func (e *stepError) Unwrap() error { return e.err }

// clientKinds are the kinds of the failures a client decides itself.
var clientKinds = map[bmcclient.Kind]kind{bmcclient.Rejected: kindRejected, bmcclient.Config: kindConfig}

// classify sorts an error from the client, the network or the activities.
// Anything unrecognised (connection reset, EOF, timeouts, a garbled body)
// is transient: retrying an idempotent step is the safe answer.
func classify(err error) kind {
	var f *failure
	if errors.As(err, &f) {
		return f.kind
	}
	var cf *bmcclient.Failure
	if errors.As(err, &cf) {
		if k, ok := clientKinds[cf.Kind]; ok {
			return k
		}
	}
	var cert *tls.CertificateVerificationError
	if errors.As(err, &cert) {
		return kindConfig // retrying cannot fix a certificate
	}
	var pe *bmcclient.PartialError
	if errors.As(err, &pe) {
		worst := kindTransient
		for _, e := range pe.Failures {
			worst = max(worst, classify(e))
		}
		return worst
	}
	var se *bmcclient.StatusError
	if errors.As(err, &se) {
		switch c := se.Status; {
		case c == 0, c == http.StatusRequestTimeout, c == http.StatusTooManyRequests, c >= 500:
			return kindTransient
		case c == http.StatusUnauthorized, c == http.StatusForbidden:
			return kindAuth
		case c == http.StatusPreconditionFailed:
			return kindPrecondition
		case c == http.StatusConflict:
			return kindConflict
		default:
			return kindRejected
		}
	}
	return kindTransient
}

// temporalError turns an activity failure into an ApplicationError that
// says which BMM and BMC, what step, and whether retrying can help.
func temporalError(ep Endpoint, err error) error {
	k := classify(err)
	msg := fmt.Sprintf("BMC of %s at %s: %v", ep.BMM, bmcclient.RedactURL(ep.Address), err)
	var cert *tls.CertificateVerificationError
	switch {
	case k == kindAuth:
		msg += " (check the credentials the BMM's reference points at)"
	case errors.As(err, &cert):
		msg += " (set caFile for this BMC, or the site, to the PEM of the CA that signed its certificate)"
	case k == kindTransient:
		msg += " (transient: a later attempt may succeed)"
	}
	return temporal.NewApplicationErrorWithOptions(msg, kindTypes[k], temporal.ApplicationErrorOptions{NonRetryable: !k.retryable()})
}

// describe shortens a BMC's answer (a client may quote the raw JSON body)
// to the status and the Redfish message.
func describe(err error) string {
	var pe *bmcclient.PartialError
	if errors.As(err, &pe) {
		for link, e := range pe.Failures {
			return link + ": " + describe(e)
		}
	}
	var se *bmcclient.StatusError
	if !errors.As(err, &se) || se.Status == 0 || se.Message == "" && len(se.Extended) == 0 {
		return err.Error()
	}
	// The BMC's own words: vendors put what went wrong in
	// @Message.ExtendedInfo when the message is generic.
	msg, ext := se.Message, strings.Join(se.Extended, "; ")
	switch {
	case msg == "":
		msg = ext
	case ext != "":
		msg += " (" + ext + ")"
	}
	if se.Code != "" {
		return fmt.Sprintf("HTTP %d %s: %s", se.Status, se.Code, msg)
	}
	return fmt.Sprintf("HTTP %d: %s", se.Status, msg)
}
