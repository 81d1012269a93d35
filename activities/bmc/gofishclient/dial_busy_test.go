package gofishclient

import (
	"context"
	"errors"
	"testing"

	"github.com/stmcginnis/gofish/schemas"
	"github.com/stretchr/testify/require"
)

func answered(code int) error { return &schemas.Error{HTTPReturnedStatusCode: code} }

// A request of a connect that the BMC answers 5xx or 429 is tried again,
// a few times; any other answer is final at once.
func TestOnBusyRetriesOnlyBusyAnswers(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		answers []error
		calls   int
		ok      bool
	}{
		{"busy then served", []error{answered(503), answered(429), nil}, 3, true},
		{"busy every time", []error{answered(500), answered(502), answered(503), nil}, busyTries, false},
		{"not found is final", []error{answered(404), nil}, 1, false},
		{"unauthorized is final", []error{answered(401), nil}, 1, false},
		{"a network error is left to the step", []error{errors.New("connection reset"), nil}, 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			err := onBusy(ctx, func() error {
				calls++
				return tc.answers[calls-1]
			})
			require.Equal(t, tc.calls, calls)
			require.Equal(t, tc.ok, err == nil, "%v", err)
		})
	}
}

// A cancelled step stops trying.
func TestOnBusyStopsWithTheStep(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	calls := 0
	err := onBusy(ctx, func() error { calls++; return answered(503) })
	require.Error(t, err)
	require.Equal(t, 1, calls)
}
