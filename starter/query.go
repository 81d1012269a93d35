package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
)

// queryPatience bounds how long a query is asked again. The server holds
// a query while the workflow is in a workflow task, and one that runs its
// ledger calls and short site reads as local activities keeps it open for
// their length, heartbeating every 8 s: an answer can take longer than
// the SDK's 10 s for one call (its maxRPCTimeout) with nothing wrong.
const queryPatience = time.Minute

// askWorkflow runs query name on workflow id, asking again while a call
// only ran out of time, for up to queryPatience (or ctx's deadline).
func askWorkflow(ctx context.Context, c client.Client, id, name string, args ...any) (converter.EncodedValue, error) {
	until := time.Now().Add(queryPatience)
	for {
		v, err := c.QueryWorkflow(ctx, id, "", name, args...)
		if err == nil || !timedOut(err) || ctx.Err() != nil || time.Now().After(until) {
			if err != nil && timedOut(err) {
				err = fmt.Errorf("%w (its workflow did not answer the %q query for %s: it is busy in a step; ask again)",
					err, name, queryPatience)
			}
			return v, err
		}
		select { // a server that refuses at once is not asked in a spin
		case <-ctx.Done():
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// timedOut: the call ran out of time, not that the workflow is missing
// or refused.
func timedOut(err error) bool {
	var de *serviceerror.DeadlineExceeded
	return errors.As(err, &de) || errors.Is(err, context.DeadlineExceeded)
}
