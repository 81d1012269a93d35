package devserver

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"text/template"
	"time"

	"github.com/rackroll/rackroll/internal/toolbin"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"google.golang.org/protobuf/types/known/durationpb"
)

// VersioningServer is the Temporal server the self-upgrade tests run
// (docs/self-upgrade.md#the-temporal-server): the first that asks a new
// build on continue-as-new (InitialVersioningBehavior) and stops runs
// bouncing between versions. `make tools` builds it under this name.
const VersioningServer = "temporal-server-v1.32.1"

// VersioningOptions configure StartVersioning.
type VersioningOptions struct {
	// Drainage is how often the server re-checks whether a version still
	// has open runs, and the grace it gives visibility first (the server's
	// default is 3 minutes each; tests shorten it to see "drained").
	Drainage time.Duration
	Log      io.Writer
}

// StartVersioning runs VersioningServer as one process (every service) on
// SQLite in memory, on free loopback ports, and registers what start-dev
// registers by itself: the namespace "default" and rackroll's search
// attributes. The caller stops it with Stop.
func StartVersioning(ctx context.Context, opts VersioningOptions) (*Server, error) {
	bin, err := toolbin.Path(VersioningServer)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "rackroll-temporal-versioning-")
	if err != nil {
		return nil, err
	}
	l, err := versioningLayout(dir, opts)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	s := &Server{Address: fmt.Sprintf("127.0.0.1:%d", l.Frontend), done: make(chan struct{}), dir: dir}
	s.cmd = exec.Command(bin, "--root", dir, "--config", "config", "--env", "development", "--allow-no-auth", "start")
	s.cmd.Env = toolbin.OneProcEnv()
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	var logTail tail
	s.cmd.Stdout = &logTail
	if opts.Log != nil {
		s.cmd.Stdout = io.MultiWriter(opts.Log, &logTail)
	}
	s.cmd.Stderr = s.cmd.Stdout
	if err := s.cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	go func() { s.cmd.Wait(); close(s.done) }()
	if err := s.waitHealthy(ctx, &logTail); err != nil {
		return nil, err
	}
	if err := registerDefaults(ctx, s.Address); err != nil {
		s.Stop()
		return nil, fmt.Errorf("%s on %s: %w\n%s", VersioningServer, s.Address, err, logTail.String())
	}
	return s, nil
}

// Dir is where StartVersioning wrote the server's config ("" for a dev
// server); Stop removes it.
func (s *Server) Dir() string { return s.dir }

// waitHealthy polls the frontend until it answers, the process exits, or
// a minute passes (then it is stopped).
func (s *Server) waitHealthy(ctx context.Context, logTail *tail) error {
	deadline := time.Now().Add(time.Minute)
	for {
		c, err := client.Dial(client.Options{HostPort: s.Address, Logger: quiet{}})
		if err == nil {
			_, err = c.CheckHealth(ctx, &client.CheckHealthRequest{})
			c.Close()
			if err == nil {
				return nil
			}
		}
		select {
		case <-s.done:
			s.Stop()
			return fmt.Errorf("temporal server exited early: %s", logTail.String())
		case <-ctx.Done():
			s.Stop()
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.Stop()
			return fmt.Errorf("temporal server on %s not healthy after 1m: %v\n%s", s.Address, err, logTail.String())
		}
	}
}

// registerDefaults registers the namespace "default" (a day's retention)
// and rackroll's search attributes in it, as start-dev does.
func registerDefaults(ctx context.Context, addr string) error {
	ns, err := client.NewNamespaceClient(client.Options{HostPort: addr, Logger: quiet{}})
	if err != nil {
		return err
	}
	defer ns.Close()
	err = ns.Register(ctx, &workflowservice.RegisterNamespaceRequest{Namespace: "default",
		WorkflowExecutionRetentionPeriod: durationpb.New(24 * time.Hour)})
	if err != nil {
		return fmt.Errorf("register namespace default: %w", err)
	}
	c, err := client.Dial(client.Options{HostPort: addr, Logger: quiet{}})
	if err != nil {
		return err
	}
	defer c.Close()
	attrs := map[string]enumspb.IndexedValueType{}
	for _, sa := range SearchAttributes {
		attrs[sa] = enumspb.INDEXED_VALUE_TYPE_KEYWORD
	}
	// A namespace just registered may not be known to every service yet.
	for try := 0; ; try++ {
		_, err = c.OperatorService().AddSearchAttributes(ctx, &operatorservice.AddSearchAttributesRequest{Namespace: "default", SearchAttributes: attrs})
		if err == nil || try == 50 {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if err != nil {
		return fmt.Errorf("add search attributes: %w", err)
	}
	return nil
}

// versioningPorts are the single process's listeners.
type versioningPorts struct {
	Frontend, FrontendHTTP, History, Matching, Worker int
	Membership                                        [4]int
	DynamicConfig                                     string
	Drainage                                          string
	// Stores are the two SQLite datastores: executions and visibility.
	Stores []string
}

// versioningLayout writes <dir>/config/development.yaml and the dynamic
// config on free loopback ports.
func versioningLayout(dir string, opts VersioningOptions) (versioningPorts, error) {
	var l versioningPorts
	for _, p := range []*int{&l.Frontend, &l.FrontendHTTP, &l.History, &l.Matching, &l.Worker,
		&l.Membership[0], &l.Membership[1], &l.Membership[2], &l.Membership[3]} {
		var err error
		if *p, err = FreePort(); err != nil {
			return l, err
		}
	}
	l.DynamicConfig = filepath.Join(dir, "dynamicconfig.yaml")
	l.Stores = []string{"sqlite-default", "sqlite-visibility"}
	if opts.Drainage > 0 {
		l.Drainage = opts.Drainage.String()
	}
	if err := os.MkdirAll(filepath.Join(dir, "config"), 0o755); err != nil {
		return l, err
	}
	if err := writeTemplate(filepath.Join(dir, "config", "development.yaml"), versioningConfig, l); err != nil {
		return l, err
	}
	return l, writeTemplate(l.DynamicConfig, versioningDynamicConfig, l)
}

func writeTemplate(path string, t *template.Template, data any) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := t.Execute(f, data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
