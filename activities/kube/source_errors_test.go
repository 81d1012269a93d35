package kube

import (
	"context"
	"errors"
	"testing"

	"k8s.io/client-go/kubernetes"
)

type failingSource struct{ err error }

func (s failingSource) Clientset(context.Context) (kubernetes.Interface, error) { return nil, s.err }

// A source that cannot answer for now (the ledger naming the kubeconfig is
// between workers) makes the activity retry; a bad kubeconfig does not.
func TestPassingSourceErrorsAreRetried(t *testing.T) {
	passing := New(failingSource{SourceUnavailable(errors.New("ledger: stream terminated"))}, Options{})
	typ, nonRetryable := appErrType(passing.Cordon(bg, "n1"))
	if typ != ErrSourceUnavailable || nonRetryable {
		t.Errorf("passing source: got type %q nonRetryable=%v, want %q retryable", typ, nonRetryable, ErrSourceUnavailable)
	}
	broken := New(failingSource{errors.New("kubeconfig: no such file")}, Options{})
	typ, nonRetryable = appErrType(broken.Cordon(bg, "n1"))
	if typ != ErrConfig || !nonRetryable {
		t.Errorf("broken source: got type %q nonRetryable=%v, want %q non-retryable", typ, nonRetryable, ErrConfig)
	}
}
