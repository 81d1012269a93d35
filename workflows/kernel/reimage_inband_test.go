package kernel

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/activities/kube"
	"go.temporal.io/sdk/temporal"
)

func TestOnlyANonRetryableWatchFailureIsAHint(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"BMC hint", temporal.NewNonRetryableApplicationError("task Exception", "ReimageFailed", nil), true},
		{"retries exhausted on a flaky BMC", temporal.NewApplicationError("503", "Unavailable"), false},
		{"worker lost", temporal.NewTimeoutError(0, nil), false},
		{"cancelled", temporal.NewCanceledError(), false},
		{"plain", errors.New("x"), false},
	} {
		if got := isHint(tc.err); got != tc.want {
			t.Errorf("%s: isHint = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestNotBackSaysWhatWasSeen(t *testing.T) {
	last := kube.NodeStatus{Node: "n1", Exists: true, Ready: "True", RuntimeVersion: "4.1.2", BootID: "b1"}
	notReady := temporal.NewNonRetryableApplicationError(`node n1 not Ready within 3h0m0s: node n1 Ready=True, bootID b1 (still the boot from before the reset, bootID "b1": the machine did not boot again)`,
		kube.ErrNodeNotReady, nil, last)
	for _, tc := range []struct {
		name    string
		waitErr error
		want    []string
	}{
		{"the limit", notReady, []string{"node n1 did not come back on 4.2.0 within 3h0m0s (timeouts.reimage)", "the node showed last: node n1 Ready=True, bootID b1 (still the boot",
			"the BMC showed last: power On, health OK"}},
		{"the BMC's hint first", nil, []string{"the install on bmm1 failed before node n1 came back on 4.2.0", "the node showed last: node n1 Ready=True, runtime-version 4.1.2, bootID b1"}},
		{"the wait broke", errors.New("kubeconfig gone"), []string{"did not come back on 4.2.0 within 3h0m0s (timeouts.reimage): kubeconfig gone"}},
	} {
		got := notBack("bmm1", "4.2.0", Limit{D: 3 * time.Hour, Key: "timeouts.reimage"}, lastStatus(tc.waitErr, "n1"), tc.waitErr, "power On, health OK")
		if tc.waitErr == nil || !isNotReady(tc.waitErr) {
			got = notBack("bmm1", "4.2.0", Limit{D: 3 * time.Hour, Key: "timeouts.reimage"}, last, tc.waitErr, "power On, health OK")
		}
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q lacks %q", tc.name, got, w)
			}
		}
	}
	if got := lastStatus(notReady, "n1"); got.BootID != "b1" || !got.IsReady() {
		t.Errorf("the wait's details carry the last status: %+v", got)
	}
}
