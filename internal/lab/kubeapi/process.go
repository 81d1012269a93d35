package kubeapi

import (
	"bytes"
	"fmt"
	"io"
	"os/exec"
	"runtime"
	"sync"
	"syscall"
	"time"

	"github.com/rackroll/rackroll/internal/toolbin"
)

// proc is one child process running in its own process group, so a kill
// reaches anything it forked too.
type proc struct {
	name string
	cmd  *exec.Cmd
	tail *tailBuffer
	done chan struct{} // closed when the process has exited and been reaped
	err  error         // exit status, valid after done
}

func startProc(name, bin string, args []string, stdout, stderr io.Writer, env ...string) (*proc, error) {
	p := &proc{name: name, tail: &tailBuffer{max: 16 << 10}, done: make(chan struct{})}
	p.cmd = exec.Command(bin, args...)
	p.cmd.Env = append(toolbin.OneProcEnv(), env...) // the last of a key wins
	p.cmd.Stdout = io.MultiWriter(stdout, p.tail)
	p.cmd.Stderr = io.MultiWriter(stderr, p.tail)
	p.cmd.SysProcAttr = &syscall.SysProcAttr{
		Setpgid: true,
		// If the test binary dies without running Stop (panic, SIGKILL),
		// the kernel kills the child rather than leaving it listening.
		Pdeathsig: syscall.SIGKILL,
	}
	// Pdeathsig fires when the forking *thread* exits, and Go may retire
	// threads; so fork from a goroutine locked to its thread and keep that
	// thread busy waiting for the child until it exits.
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := p.cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	if err := <-started; err != nil {
		return nil, fmt.Errorf("start %s (%s): %w", name, bin, err)
	}
	return p, nil
}

// exited reports whether the process has ended.
func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// kill SIGKILLs the whole process group and waits until it is reaped. The
// lab's data is throwaway, so there is nothing a graceful stop would save.
func (p *proc) kill() {
	if p == nil || p.cmd.Process == nil {
		return
	}
	if !p.exited() {
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	}
	<-p.done
}

// stop asks the process group to end (SIGTERM) and kills it if it has not
// within grace.
func (p *proc) stop(grace time.Duration) {
	if p == nil || p.cmd.Process == nil {
		return
	}
	if !p.exited() {
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM)
	}
	select {
	case <-p.done:
	case <-time.After(grace):
		p.kill()
	}
}

// tailBuffer keeps the last max bytes written, for error messages, and
// remembers the markers it was ever written: a busy etcd member can log
// more than max after saying it was removed, before it exits.
type tailBuffer struct {
	mu   sync.Mutex
	max  int
	buf  []byte
	seen map[string]bool
}

// markers are the phrases contains is asked about.
var markers = []string{"must be removed", "address already in use"}

func (t *tailBuffer) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	for _, m := range markers {
		// Only the new bytes and the seam before them can hold a new mention.
		from := max(0, len(t.buf)-len(b)-len(m))
		if bytes.Contains(t.buf[from:], []byte(m)) {
			if t.seen == nil {
				t.seen = map[string]bool{}
			}
			t.seen[m] = true
		}
	}
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(b), nil
}

// lastLines returns up to n trailing lines.
func (t *tailBuffer) lastLines(n int) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := bytes.Split(bytes.TrimRight(t.buf, "\n"), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return string(bytes.Join(lines, []byte("\n")))
}

// contains reports whether the output mentions s: a marker ever, anything
// else within the kept tail.
func (t *tailBuffer) contains(s string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.seen[s] || bytes.Contains(t.buf, []byte(s))
}
