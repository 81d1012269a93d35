// Package kubeapitest shares one real kube-apiserver among a package's
// integration tests (starting one takes seconds), and the polling helper
// they wait with.
package kubeapitest

import (
	"context"
	"flag"
	"os"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/lab/kubeapi"
)

var (
	shared    *kubeapi.Server
	sharedErr error
)

// Main is a package's TestMain: it starts the apiserver (not under
// -short), runs the tests and stops it.
func Main(m *testing.M) {
	flag.Parse()
	if testing.Short() {
		os.Exit(m.Run())
	}
	ctx, cancel := context.WithCancel(context.Background())
	shared, sharedErr = kubeapi.Start(ctx, kubeapi.Options{})
	code := m.Run()
	if shared != nil {
		shared.Stop()
	}
	cancel()
	os.Exit(code)
}

// Server is the shared apiserver. Under -short it skips the test; if the
// apiserver did not start it fails it with the reason.
func Server(t testing.TB) *kubeapi.Server {
	t.Helper()
	if testing.Short() {
		t.Skip("integration test: needs etcd and kube-apiserver")
	}
	if sharedErr != nil {
		t.Fatal(sharedErr)
	}
	return shared
}

// Eventually polls cond until it holds. The deadline only guards against
// hangs; it is not a timing assertion.
func Eventually(t testing.TB, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		ok, why := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: still not true after 60s: %s", what, why)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
