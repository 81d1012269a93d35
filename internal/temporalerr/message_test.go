package temporalerr

import (
	"errors"
	"fmt"
	"testing"

	"go.temporal.io/sdk/temporal"
)

func TestMessage(t *testing.T) {
	refused := temporal.NewNonRetryableApplicationError("bmm r1-c1 is busy", "LeaseRejected", nil)
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"application error", refused, "bmm r1-c1 is busy"},
		{"wrapped application error", fmt.Errorf("update: %w", fmt.Errorf("handler: %w", refused)), "bmm r1-c1 is busy"},
		{"no application error: the innermost", fmt.Errorf("outer: %w", errors.New("canceled")), "canceled"},
		{"plain error", errors.New("boom"), "boom"},
	} {
		if got := Message(tc.err); got != tc.want {
			t.Errorf("%s: Message = %q, want %q", tc.name, got, tc.want)
		}
	}
}
