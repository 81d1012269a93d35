package gofishclient

import (
	"errors"

	"github.com/rackroll/rackroll/activities/bmc/bmcclient"
	"github.com/stmcginnis/gofish/schemas"
)

// redfishError puts an error of gofish in bmcclient's terms, so the
// activities never look at gofish's types: an HTTP answer becomes a
// *bmcclient.StatusError, a collection read with failed members a
// *bmcclient.PartialError; both keep gofish's text and wrap its error.
// Anything else (the network, TLS, a garbled body, the client's own
// Failures, an error already put in those terms) is returned as it is.
func redfishError(err error) error {
	var se *bmcclient.StatusError
	var pe *bmcclient.PartialError
	if err == nil || errors.As(err, &se) || errors.As(err, &pe) {
		return err
	}
	var ce *schemas.CollectionError
	if errors.As(err, &ce) {
		failures := make(map[string]error, len(ce.Failures))
		for link, e := range ce.Failures {
			failures[link] = redfishError(e)
		}
		return &bmcclient.PartialError{Failures: failures, Err: err}
	}
	var rf *schemas.Error
	if errors.As(err, &rf) {
		return &bmcclient.StatusError{Status: rf.HTTPReturnedStatusCode, Code: rf.Code, Message: rf.Message,
			SessionCap: sessionCapped(err), Extended: extendedInfo(rf), Err: err}
	}
	return err
}

// extendedInfo lists an error's @Message.ExtendedInfo as "MessageId:
// Message", leaving out what only repeats the error's own message.
func extendedInfo(rf *schemas.Error) []string {
	var out []string
	for _, m := range rf.ExtendedInfos {
		switch {
		case m.Message == "" || m.Message == rf.Message:
		case m.MessageID == "":
			out = append(out, m.Message)
		default:
			out = append(out, m.MessageID+": "+m.Message)
		}
	}
	return out
}

// rejected and configError are the failures the client decides itself.
func rejected(msg string) error {
	return &bmcclient.Failure{Kind: bmcclient.Rejected, Msg: msg}
}

func configError(msg string) error {
	return &bmcclient.Failure{Kind: bmcclient.Config, Msg: msg}
}
