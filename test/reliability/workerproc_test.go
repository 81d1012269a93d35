package reliability

import (
	"os"
	"syscall"
	"testing"

	"github.com/rackroll/rackroll/internal/temporalcluster"
	"github.com/rackroll/rackroll/internal/toolbin"
	"github.com/rackroll/rackroll/test/e2e"
)

// The real worker and starter binaries, built once per test process: the
// crash tests must kill a separate process (SIGKILL gives it no chance to
// clean up), and the secret scan must read what the real binaries print.
var commands toolbin.Commands

// workerProc is the worker binary run as a subprocess against one server.
// Every incarnation appends its stdout and stderr to the same log file, so
// the secret scan sees all of them.
type workerProc struct {
	t *testing.T
	*temporalcluster.Process
}

func startWorkerProc(t *testing.T, address, logPath string) *workerProc {
	bin, _ := e2e.Binaries(t, &commands)
	p := temporalcluster.NewProcess("worker", logPath, nil, bin, "--log-level", "debug")
	// Only the address: the worker must find the lab's BMC credentials and
	// kubeconfig through the references in the ledger, like in production.
	p.Env = append(os.Environ(), "TEMPORAL_ADDRESS="+address, "TEMPORAL_NAMESPACE=default")
	w := &workerProc{t: t, Process: p}
	t.Cleanup(w.kill)
	if err := w.start(); err != nil {
		t.Fatal(err)
	}
	return w
}

// start runs a new incarnation. It may be called from the chaos goroutine,
// so it reports errors instead of failing the test itself.
func (w *workerProc) start() error { return w.Start() }

// kill SIGKILLs the current incarnation (if any) and waits for it to go.
func (w *workerProc) kill() { w.Stop(syscall.SIGKILL) }

// pid of the running incarnation and whether it is still alive.
func (w *workerProc) pid() (int, bool) { return w.Pid(), w.Alive() }
