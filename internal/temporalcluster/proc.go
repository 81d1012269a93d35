package temporalcluster

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Process is one long-running child process that can be stopped and
// started again with the same command line (a Temporal service, a rackroll
// worker). Every incarnation appends to the same log file, so a failure
// shows the whole story.
type Process struct {
	name    string
	logPath string
	cred    *syscall.Credential
	argv    []string
	// Env is the whole environment of the process (none of the
	// caller's); set it before Start.
	Env []string

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan struct{}
	starts int
}

// NewProcess describes a process; cred, when set, runs it as another user.
func NewProcess(name, logPath string, cred *syscall.Credential, argv ...string) *Process {
	return &Process{name: name, logPath: logPath, cred: cred, argv: argv, Env: []string{"LC_ALL=C"}}
}

// Start runs a new incarnation in its own process group, killed with the
// test binary if that dies first.
func (p *Process) Start() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	log, err := os.OpenFile(p.logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer log.Close() // the child holds its own descriptor
	fmt.Fprintf(log, "---- %s: start %d at %s ----\n", p.name, p.starts+1, time.Now().Format(time.RFC3339Nano))
	cmd := exec.Command(p.argv[0], p.argv[1:]...)
	cmd.Env = p.Env
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL, Credential: p.cred}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", p.name, err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	p.cmd, p.exited = cmd, exited
	p.starts++
	return nil
}

// Stop sends sig to the process group, then SIGKILL after 20 s, and waits
// until the process is gone. Stopping a stopped proc does nothing.
func (p *Process) Stop(sig syscall.Signal) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil {
		return
	}
	syscall.Kill(-p.cmd.Process.Pid, sig)
	select {
	case <-p.exited:
	case <-time.After(20 * time.Second):
		syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.exited
	}
	p.cmd = nil
}

// Alive reports whether the current incarnation is running.
func (p *Process) Alive() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil {
		return false
	}
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// waitFor polls ready until it succeeds, the process exits, or within
// passes; the error carries the end of the log.
func (p *Process) waitFor(ctx context.Context, within time.Duration, ready func() error) error {
	deadline := time.Now().Add(within)
	for {
		err := ready()
		if err == nil {
			return nil
		}
		if !p.Alive() {
			return fmt.Errorf("%s exited: %v\n%s", p.name, err, p.Tail())
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not ready after %v: %v\n%s", p.name, within, err, p.Tail())
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// Tail is the end of the log, for error messages.
func (p *Process) Tail() string {
	b, _ := os.ReadFile(p.logPath)
	if len(b) > 6000 {
		b = b[len(b)-6000:]
	}
	return strings.TrimSpace(string(b))
}

// Starts counts the incarnations so far.
func (p *Process) Starts() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.starts
}

// Pid of the running incarnation, 0 when stopped.
func (p *Process) Pid() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil {
		return 0
	}
	return p.cmd.Process.Pid
}
