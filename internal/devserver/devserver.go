// Package devserver starts the Temporal dev server from bin/temporal for
// integration tests and the demo: loopback only, free ports, sqlite in
// memory (or a given file), and rackroll's search attributes registered.
package devserver

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
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
	DBFile   string // sqlite file; "" = in memory (no disk writes: cheaper for the many test servers)
	LogLevel string // default "error"
	Log      io.Writer
}

// Server is a running dev server.
type Server struct {
	Address string // host:port of the frontend
	UIURL   string // "" when headless
	cmd     *exec.Cmd
	done    chan struct{}
	dir     string // removed at Stop (StartVersioning's config)
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

// Start runs `temporal server start-dev` and waits until it answers.
func Start(ctx context.Context, opts Options) (*Server, error) {
	// The HTTP port is free when chosen, not when the server binds it: on a
	// busy machine another process may take it in between, and the server
	// exits at once (a panic naming the listener). Try again with another.
	for attempt := 1; ; attempt++ {
		s, err := startOnce(ctx, opts)
		if err == nil || attempt == 3 || !strings.Contains(err.Error(), "exited early") {
			return s, err
		}
	}
}

func startOnce(ctx context.Context, opts Options) (*Server, error) {
	bin, err := toolbin.Path("temporal")
	if err != nil {
		return nil, err
	}
	s := &Server{done: make(chan struct{})}
	if opts.Port == 0 {
		if opts.Port, err = FreePort(); err != nil {
			return nil, err
		}
	}
	if opts.LogLevel == "" {
		opts.LogLevel = "error"
	}
	args := []string{"server", "start-dev", "--ip", "127.0.0.1",
		"--port", strconv.Itoa(opts.Port), "--log-level", opts.LogLevel}
	if opts.DBFile != "" {
		args = append(args, "--db-filename", opts.DBFile)
	}
	// The dev server also listens on port+1000 for HTTP and picks a metrics
	// port; pin them to free ports so parallel servers do not collide.
	httpPort, err := FreePort()
	if err != nil {
		return nil, err
	}
	args = append(args, "--http-port", strconv.Itoa(httpPort))
	if opts.UIPort > 0 {
		args = append(args, "--ui-port", strconv.Itoa(opts.UIPort), "--ui-ip", "127.0.0.1")
		s.UIURL = fmt.Sprintf("http://127.0.0.1:%d", opts.UIPort)
	} else {
		args = append(args, "--headless")
	}
	for _, sa := range SearchAttributes {
		args = append(args, "--search-attribute", sa+"=Keyword")
	}
	s.Address = fmt.Sprintf("127.0.0.1:%d", opts.Port)
	s.cmd = exec.Command(bin, args...)
	s.cmd.Env = toolbin.OneProcEnv()
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	var logTail tail
	if opts.Log != nil {
		s.cmd.Stdout = io.MultiWriter(opts.Log, &logTail)
	} else {
		s.cmd.Stdout = &logTail
	}
	s.cmd.Stderr = s.cmd.Stdout
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	go func() { s.cmd.Wait(); close(s.done) }()

	deadline := time.Now().Add(60 * time.Second)
	for {
		c, err := client.Dial(client.Options{HostPort: s.Address, Logger: quiet{}})
		if err == nil {
			_, err = c.CheckHealth(ctx, &client.CheckHealthRequest{})
			c.Close()
			if err == nil {
				return s, nil
			}
		}
		select {
		case <-s.done:
			return nil, fmt.Errorf("temporal dev server exited early: %s", logTail.String())
		case <-ctx.Done():
			s.Stop()
			return nil, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.Stop()
			return nil, fmt.Errorf("temporal dev server on %s not healthy after 60s: %v\n%s", s.Address, err, logTail.String())
		}
	}
}

// Stop terminates the server (SIGTERM, then SIGKILL). The sqlite file
// given in Options is kept.
func (s *Server) Stop() {
	if s.cmd != nil && s.cmd.Process != nil {
		syscall.Kill(-s.cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-s.done:
		case <-time.After(10 * time.Second):
			syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
			<-s.done
		}
	}
	if s.dir != "" {
		os.RemoveAll(s.dir)
	}
}

// Client dials the server.
func (s *Server) Client() (client.Client, error) {
	return client.Dial(client.Options{HostPort: s.Address, Logger: quiet{}})
}

// tail keeps the last few KiB of the server's output for error messages.
type tail struct{ b []byte }

func (t *tail) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > 8192 {
		t.b = t.b[len(t.b)-8192:]
	}
	return len(p), nil
}
func (t *tail) String() string { return strings.TrimSpace(string(t.b)) }

// quiet drops the SDK's connection chatter while polling for health.
type quiet struct{}

func (quiet) Debug(string, ...any) {}
func (quiet) Info(string, ...any)  {}
func (quiet) Warn(string, ...any)  {}
func (quiet) Error(string, ...any) {}
