// Package devserver starts a Temporal server for the integration tests,
// the demo and `make dev-server`: bin/'s toolbin.TemporalDevServer, one
// process (every service, static membership) on SQLite, in memory or in a file, on free
// loopback ports, with what `temporal server start-dev` registers by
// itself (the namespace "default", rackroll's search attributes), and the
// Web UI beside it when asked. Not the CLI's start-dev: the CLI v1.5.1
// bundles server 1.29.1, which drops the new build a run asks for on
// continue-as-new (docs/self-upgrade.md#the-temporal-server).
package devserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rackroll/rackroll/internal/toolbin"
	"go.temporal.io/sdk/client"
)

// SearchAttributes are the Keyword attributes every rackroll server needs.
var SearchAttributes = []string{"RackrollCluster", "RackrollOperation", "RackrollPhase"}

// Options configure Start. Zero values choose free ports and a temp dir.
type Options struct {
	Port     int    // frontend port; 0 = free port
	UIPort   int    // 0 = headless (no UI)
	DBFile   string // sqlite file, kept across restarts; "" = in memory (no disk writes: cheaper for the many test servers)
	LogLevel string // default "error"
	Log      io.Writer
	// Drainage is how often the server re-checks whether a worker
	// deployment version still has open runs, and the grace it gives
	// visibility first (the server's default is 3 minutes each; tests
	// shorten it to see "drained").
	Drainage time.Duration
}

// Server is a running server (and its UI).
type Server struct {
	Address string // host:port of the frontend
	UIURL   string // "" when headless
	procs   []*proc
	dir     string // the config, removed at Stop
}

// proc is one process of the server; done closes when it has exited.
type proc struct {
	cmd  *exec.Cmd
	done chan struct{}
	log  tail
}

// FreePort asks the kernel for an unused loopback port.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// LoopbackPort is a free loopback port below 32768: the SQL stores keep a
// member's ringpop port in a SMALLINT column (cluster_membership.rpc_port;
// PostgreSQL refuses 32768 and up, and the service dies at start), and
// ports below the kernel's ephemeral range are taken only by explicit
// binds, not by some client's outgoing connection, so one that binds now
// stays free.
func LoopbackPort() (int, error) {
	for range 200 {
		p := 20000 + rand.IntN(12000)
		if l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p)); err == nil {
			l.Close()
			return p, nil
		}
	}
	return 0, errors.New("no free loopback port between 20000 and 32000")
}

// Start runs the server, waits until it answers, registers the defaults,
// and starts the UI when Options.UIPort is set. The caller stops it with
// Stop.
func Start(ctx context.Context, opts Options) (*Server, error) {
	// A port is free when chosen, not when the server binds it: on a busy
	// machine another process (or a client's outgoing connection) may take
	// it in between, and the server exits at once. Try again with other
	// ports; a frontend port the caller fixed (a restart) is kept, and a
	// short wait lets a passing holder go.
	for attempt := 1; ; attempt++ {
		s, err := startOnce(ctx, opts)
		if err == nil || attempt == 5 || !strings.Contains(err.Error(), "exited early") {
			return s, err
		}
		time.Sleep(time.Duration(attempt) * 200 * time.Millisecond)
	}
}

func startOnce(ctx context.Context, opts Options) (*Server, error) {
	bin, err := toolbin.Path(toolbin.TemporalDevServer)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "rackroll-temporal-")
	if err != nil {
		return nil, err
	}
	l, err := writeLayout(dir, opts)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	s := &Server{Address: fmt.Sprintf("127.0.0.1:%d", l.Frontend), dir: dir}
	p, err := s.run(bin, opts.Log, "--config-dir", filepath.Join(dir, "config"), "--env", "development")
	if err != nil {
		return nil, err
	}
	if err := s.waitHealthy(ctx, p); err != nil {
		return nil, err
	}
	if err := registerDefaults(ctx, s.Address); err != nil {
		s.Stop()
		return nil, fmt.Errorf("%s on %s: %w\n%s", toolbin.TemporalDevServer, s.Address, err, p.log.String())
	}
	if opts.UIPort > 0 {
		if err := s.startUI(ctx, opts.UIPort, opts.Log); err != nil {
			s.Stop()
			return nil, err
		}
	}
	return s, nil
}

// run starts one of the server's processes in its own process group, on
// one P (toolbin.OneProcEnv), killed with the test process.
func (s *Server) run(bin string, log io.Writer, args ...string) (*proc, error) {
	p := &proc{cmd: exec.Command(bin, args...), done: make(chan struct{})}
	p.cmd.Env = toolbin.OneProcEnv()
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	p.cmd.Stdout = &p.log
	if log != nil {
		p.cmd.Stdout = io.MultiWriter(log, &p.log)
	}
	p.cmd.Stderr = p.cmd.Stdout
	if err := p.cmd.Start(); err != nil {
		s.Stop()
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	go func() { p.cmd.Wait(); close(p.done) }()
	s.procs = append(s.procs, p)
	return p, nil
}

// Stop terminates the processes (SIGTERM, then SIGKILL after 10 s) and
// removes the config. The sqlite file given in Options is kept.
func (s *Server) Stop() {
	for i := len(s.procs) - 1; i >= 0; i-- {
		p := s.procs[i]
		syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(10 * time.Second):
			syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
			<-p.done
		}
	}
	s.procs = nil
	if s.dir != "" {
		os.RemoveAll(s.dir)
	}
}

// Dir is where Start wrote the server's config; Stop removes it.
func (s *Server) Dir() string { return s.dir }

// Client dials the server.
func (s *Server) Client() (client.Client, error) {
	return client.Dial(client.Options{HostPort: s.Address, Logger: quiet{}})
}

// tail keeps the last few KiB of a process's output for error messages
// (written by exec's copier, read by the caller).
type tail struct {
	mu sync.Mutex
	b  []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > 8192 {
		t.b = t.b[len(t.b)-8192:]
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.b))
}

// quiet drops the SDK's connection chatter while polling for health.
type quiet struct{}

func (quiet) Debug(string, ...any) {}
func (quiet) Info(string, ...any)  {}
func (quiet) Warn(string, ...any)  {}
func (quiet) Error(string, ...any) {}
