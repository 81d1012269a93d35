package kernel

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	failurepb "go.temporal.io/api/failure/v1"
	"go.temporal.io/sdk/temporal"
)

// activityFailure is the error a workflow gets for an activity that ended
// with retryState, its last attempt failing with cause (as the server
// sends it: converted from its Failure).
func activityFailure(retryState enumspb.RetryState, cause *failurepb.Failure) error {
	return temporal.GetDefaultFailureConverter().FailureToError(&failurepb.Failure{
		Message: "activity error",
		FailureInfo: &failurepb.Failure_ActivityFailureInfo{ActivityFailureInfo: &failurepb.ActivityFailureInfo{
			ActivityType: &commonpb.ActivityType{Name: "Drain"}, RetryState: retryState}},
		Cause: cause,
	})
}

func appFailure(msg string) *failurepb.Failure {
	return &failurepb.Failure{Message: msg, FailureInfo: &failurepb.Failure_ApplicationFailureInfo{
		ApplicationFailureInfo: &failurepb.ApplicationFailureInfo{Type: "wrapError"}}}
}

// A drain whose last attempt ended with its own context, no room left for
// another, ran out of time (seen on a loaded worker: "context canceled",
// RETRY_STATE_TIMEOUT); a real failure that used the limit up in retries,
// or one that may still be retried, did not.
func TestRanOutOfTime(t *testing.T) {
	canceled := &failurepb.Failure{Message: "canceled", FailureInfo: &failurepb.Failure_CanceledFailureInfo{CanceledFailureInfo: &failurepb.CanceledFailureInfo{}}}
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"context canceled, no room left", activityFailure(enumspb.RETRY_STATE_TIMEOUT, appFailure("context canceled")), true},
		{"deadline exceeded, no room left", activityFailure(enumspb.RETRY_STATE_TIMEOUT, appFailure("context deadline exceeded")), true},
		{"cancelled, no room left", activityFailure(enumspb.RETRY_STATE_TIMEOUT, canceled), true},
		{"the API refused, no room left", activityFailure(enumspb.RETRY_STATE_TIMEOUT, appFailure("nodes \"x\" is forbidden")), false},
		{"context canceled, attempts used up", activityFailure(enumspb.RETRY_STATE_MAXIMUM_ATTEMPTS_REACHED, appFailure("context canceled")), false},
		{"context canceled, not retryable", activityFailure(enumspb.RETRY_STATE_NON_RETRYABLE_FAILURE, appFailure("context canceled")), false},
		{"not an activity's", errors.New("context canceled"), false},
		{"nil", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, ranOutOfTime(tc.err), "%v", tc.err)
		})
	}
}
