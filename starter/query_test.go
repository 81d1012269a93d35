package main

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
)

// slowQueries answers a query only after failing it late times.
type slowQueries struct {
	client.Client
	late, asked int
	err         error
}

func (s *slowQueries) QueryWorkflow(context.Context, string, string, string, ...any) (converter.EncodedValue, error) {
	s.asked++
	if s.asked <= s.late {
		return nil, serviceerror.NewDeadlineExceeded("context deadline exceeded")
	}
	if s.err != nil {
		return nil, s.err
	}
	p, _ := converter.GetDefaultDataConverter().ToPayloads("ok")
	return client.NewValue(p), nil
}

func TestAskWorkflowAsksAgainWhileACallOnlyRanOutOfTime(t *testing.T) {
	ctx := context.Background()
	s := &slowQueries{late: 2}
	v, err := askWorkflow(ctx, s, "upgrade:x", "status")
	require.NoError(t, err)
	var got string
	require.NoError(t, v.Get(&got))
	require.Equal(t, "ok", got)
	require.Equal(t, 3, s.asked, "two calls ran out of time, the third answered")

	// Any other error is the answer at once.
	s = &slowQueries{err: serviceerror.NewNotFound("workflow not found")}
	_, err = askWorkflow(ctx, s, "upgrade:x", "status")
	var nf *serviceerror.NotFound
	require.True(t, errors.As(err, &nf), "%v", err)
	require.Equal(t, 1, s.asked)

	// A caller's ended context ends the asking, and says why.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	s = &slowQueries{late: 100}
	_, err = askWorkflow(cctx, s, "upgrade:x", "status")
	require.ErrorContains(t, err, `did not answer the "status" query`)
	require.Equal(t, 1, s.asked)
}
