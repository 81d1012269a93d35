package reliability

import (
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"testing"

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
	t       *testing.T
	bin     string
	address string
	logPath string

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan struct{}
	starts int
}

func startWorkerProc(t *testing.T, address, logPath string) *workerProc {
	bin, _ := e2e.Binaries(t, &commands)
	w := &workerProc{t: t, bin: bin, address: address, logPath: logPath}
	t.Cleanup(w.kill)
	if err := w.start(); err != nil {
		t.Fatal(err)
	}
	return w
}

// start runs a new incarnation. It may be called from the chaos goroutine,
// so it reports errors instead of failing the test itself.
func (w *workerProc) start() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	log, err := os.OpenFile(w.logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer log.Close() // the child holds its own descriptor
	cmd := exec.Command(w.bin, "--log-level", "debug")
	// Only the address: the worker must find the lab's BMC credentials and
	// kubeconfig through the references in the ledger, like in production.
	cmd.Env = append(os.Environ(), "TEMPORAL_ADDRESS="+w.address, "TEMPORAL_NAMESPACE=default")
	cmd.Stdout, cmd.Stderr = log, log
	// Its own process group, and killed with the test binary if that dies.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start the worker: %w", err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	w.cmd, w.exited = cmd, exited
	w.starts++
	return nil
}

// kill SIGKILLs the current incarnation (if any) and waits for it to go.
func (w *workerProc) kill() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.cmd == nil {
		return
	}
	syscall.Kill(w.cmd.Process.Pid, syscall.SIGKILL)
	<-w.exited
	w.cmd = nil
}

// pid of the running incarnation and whether it is still alive.
func (w *workerProc) pid() (int, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.cmd == nil {
		return 0, false
	}
	select {
	case <-w.exited:
		return w.cmd.Process.Pid, false
	default:
		return w.cmd.Process.Pid, true
	}
}
