// Package kubeapi runs a real etcd and kube-apiserver on loopback for the
// lab and the integration tests: no kubelet, scheduler or controller
// manager, just the API and its admission and eviction logic (the kubelet
// simulator in ../kubesim plays the missing parts).
package kubeapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/toolbin"
)

// DefaultStartTimeout bounds how long Start waits for /readyz.
const DefaultStartTimeout = 90 * time.Second

// Options configure Start. The zero value is ready to use.
type Options struct {
	// DataDir holds etcd's data, the generated keys, the logs and the
	// kubeconfig. Empty: a temp dir that Stop removes. A given DataDir is
	// kept, but its etcd data is wiped at Start so every run begins empty.
	DataDir string
	// Stdout and Stderr receive both processes' output. Default: the files
	// etcd.log and kube-apiserver.log in DataDir.
	Stdout, Stderr io.Writer
	// Fixed ports on 127.0.0.1 (0: pick free ones).
	APIServerPort, EtcdClientPort, EtcdPeerPort int
	// StartTimeout bounds the wait for /readyz (default DefaultStartTimeout).
	StartTimeout time.Duration
	// EtcdMembers are the control-plane machines etcd runs on, one member
	// each (EtcdClientPort and EtcdPeerPort apply to the first). Empty: one
	// member named "lab".
	EtcdMembers []EtcdMember
	// Events receives the etcd cluster's events (nil: none).
	Events events.Sink
}

// Server is a running etcd + kube-apiserver pair.
type Server struct {
	dir, kubeconfig string
	removeDir       bool
	url             string
	pki             *labPKI
	etcd            *EtcdCluster
	apiserver       *proc
	logFiles        []*os.File
	client          kubernetes.Interface
	stopOnce        sync.Once
	stopped         chan struct{}
}

// Start launches etcd and kube-apiserver, waits until the API is ready and
// writes a kubeconfig. On error nothing is left running. Cancelling ctx
// stops the server too, so a failed test cannot leak the processes.
// A free port can be taken by another process before the child binds it
// (labs start side by side in the tests): when ports were chosen here and
// one was lost that way, Start tries again with others.
func Start(ctx context.Context, opts Options) (*Server, error) {
	fixed := opts.APIServerPort != 0 || opts.EtcdClientPort != 0 || opts.EtcdPeerPort != 0
	for attempt := 1; ; attempt++ {
		s, err := start(ctx, opts)
		if err == nil || fixed || attempt == 3 || !errors.Is(err, errPortTaken) {
			return s, err
		}
	}
}

func start(ctx context.Context, opts Options) (_ *Server, err error) {
	etcdBin, err := toolbin.Path("etcd")
	if err != nil {
		return nil, err
	}
	apiBin, err := toolbin.Path("kube-apiserver")
	if err != nil {
		return nil, err
	}
	s := &Server{dir: opts.DataDir, stopped: make(chan struct{})}
	if s.dir == "" {
		if s.dir, err = os.MkdirTemp("", "rackroll-kubeapi-"); err != nil {
			return nil, err
		}
		s.removeDir = true
	}
	defer func() {
		if err != nil {
			s.Stop()
		}
	}()
	if err := prepareDir(s.dir); err != nil {
		return nil, err
	}
	members := opts.EtcdMembers
	if len(members) == 0 {
		members = []EtcdMember{{Name: "lab", Initial: true}}
	}
	ports, err := pickPorts(opts, len(members))
	if err != nil {
		return nil, err
	}
	apiPort := ports[0]
	if s.pki, err = writePKI(filepath.Join(s.dir, "pki")); err != nil {
		return nil, fmt.Errorf("generate lab keys: %w", err)
	}
	etcdTLS, err := writeEtcdPKI(filepath.Join(s.dir, "pki"))
	if err != nil {
		return nil, fmt.Errorf("generate lab etcd keys: %w", err)
	}
	if s.etcd, err = newEtcdCluster(etcdBin, filepath.Join(s.dir, "etcd"), etcdTLS, members, ports[1:], opts.Events); err != nil {
		return nil, err
	}

	stdout, stderr := opts.Stdout, opts.Stderr
	logFor := func(name string) (io.Writer, io.Writer, error) {
		if stdout != nil && stderr != nil {
			return stdout, stderr, nil
		}
		f, err := os.Create(filepath.Join(s.dir, name+".log"))
		if err != nil {
			return nil, nil, err
		}
		s.logFiles = append(s.logFiles, f)
		o, e := io.Writer(f), io.Writer(f)
		if stdout != nil {
			o = stdout
		}
		if stderr != nil {
			e = stderr
		}
		return o, e, nil
	}

	// Members log to etcd/<name>.log. All start at once, and so does the
	// apiserver: it retries etcd until it answers, which is quicker than
	// waiting for etcd's health first.
	if err := os.MkdirAll(filepath.Join(s.dir, "etcd"), 0o700); err != nil {
		return nil, err
	}
	if err := s.etcd.startInitial(); err != nil {
		return nil, err
	}
	o, e, err := logFor("kube-apiserver")
	if err != nil {
		return nil, err
	}
	// GOGC=1000: the apiserver's start allocates much and keeps little, and
	// each lab starts one; collecting a tenth as often cut its CPU to ready
	// and in the next 20 s by a seventh (four-rack lab, four starts), its
	// peak RSS unchanged (~400 MiB).
	if s.apiserver, err = startProc("kube-apiserver", apiBin, apiserverArgs(s.dir, s.pki, apiPort, s.etcd.Endpoints(), etcdTLS), o, e, "GOGC=1000"); err != nil {
		return nil, err
	}
	s.url = "https://127.0.0.1:" + strconv.Itoa(apiPort)

	timeout := opts.StartTimeout
	if timeout <= 0 {
		timeout = DefaultStartTimeout
	}
	if err := s.waitReady(ctx, timeout); err != nil {
		return nil, err
	}
	if s.client, err = kubernetes.NewForConfig(s.RESTConfig()); err != nil {
		return nil, err
	}
	if s.kubeconfig, err = writeKubeconfig(filepath.Join(s.dir, "kubeconfig"), s.url, s.pki); err != nil {
		return nil, err
	}
	go func() {
		select {
		case <-ctx.Done():
			s.Stop()
		case <-s.stopped:
		}
	}()
	return s, nil
}

// prepareDir creates dir and empties what a previous run left in it.
func prepareDir(dir string) error {
	for _, sub := range []string{"etcd", "pki", "certs"} {
		if err := os.RemoveAll(filepath.Join(dir, sub)); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "pki"), 0o700); err != nil {
		return fmt.Errorf("create kubeapi data dir: %w", err)
	}
	return os.MkdirAll(filepath.Join(dir, "certs"), 0o700)
}

// pickPorts returns the apiserver port, then an etcd client and peer port
// per member: the fixed ones from opts (refused at once when taken) and
// free ones for the rest.
func pickPorts(opts Options, members int) ([]int, error) {
	want := make([]int, 1+2*members)
	want[0], want[1], want[2] = opts.APIServerPort, opts.EtcdClientPort, opts.EtcdPeerPort
	names := []string{"apiserver", "etcd client", "etcd peer"}
	free, err := freePorts(len(want))
	if err != nil {
		return nil, err
	}
	for i, p := range want {
		if p == 0 {
			want[i] = free[i]
			continue
		}
		if portBusy(p) {
			return nil, fmt.Errorf("%s port 127.0.0.1:%d is already in use: stop what listens there or choose another port (0 picks a free one)", names[i], p)
		}
	}
	return want, nil
}

// URL is the apiserver's https address.
func (s *Server) URL() string { return s.url }

// Kubeconfig is the path of a kubeconfig for the admin user.
func (s *Server) Kubeconfig() string { return s.kubeconfig }

// Dir is the data directory.
func (s *Server) Dir() string { return s.dir }

// Token is the admin bearer token (lab only; never put it in an inventory).
func (s *Server) Token() string { return s.pki.token }

// RESTConfig returns a config for the admin user. QPS is raised far above
// client-go's default of 5 so a simulator for a thousand nodes keeps up;
// the loopback apiserver is the only one it can overload.
func (s *Server) RESTConfig() *rest.Config {
	return &rest.Config{
		Host:            s.url,
		BearerToken:     s.pki.token,
		TLSClientConfig: rest.TLSClientConfig{CAData: s.pki.caPEM},
		QPS:             2000,
		Burst:           4000,
		// Protobuf, as kubelets and controllers speak: JSON would make the
		// lab's apiserver spend most of its CPU encoding the simulator's
		// lists and watches.
		ContentConfig: rest.ContentConfig{ContentType: runtime.ContentTypeProtobuf,
			AcceptContentTypes: runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON},
	}
}

// Client returns a clientset for the admin user.
func (s *Server) Client() kubernetes.Interface { return s.client }

// Etcd is the lab's etcd cluster.
func (s *Server) Etcd() *EtcdCluster { return s.etcd }

// PIDs returns the process ids of the running etcd members and
// kube-apiserver (for tests that check nothing is left running).
func (s *Server) PIDs() []int {
	var out []int
	if s.etcd != nil {
		out = s.etcd.pids()
	}
	if p := s.apiserver; p != nil && p.cmd.Process != nil {
		out = append(out, p.cmd.Process.Pid)
	}
	return out
}

// Stop kills both processes (and their process groups), waits for them and
// removes the data dir when Start created it. Safe to call more than once.
func (s *Server) Stop() error {
	var err error
	s.stopOnce.Do(func() {
		close(s.stopped)
		s.apiserver.kill()
		if s.etcd != nil {
			s.etcd.close()
		}
		for _, f := range s.logFiles {
			f.Close()
		}
		if s.removeDir {
			err = os.RemoveAll(s.dir)
		}
	})
	return err
}

// waitReady polls /readyz until it answers ok, a process dies, ctx ends or
// timeout passes; errors carry the tail of the logs.
func (s *Server) waitReady(ctx context.Context, timeout time.Duration) error {
	hc, err := rest.HTTPClientFor(s.RESTConfig())
	if err != nil {
		return err
	}
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	var last string
	for {
		for _, p := range []*proc{s.etcd.exited(), s.apiserver} {
			if p != nil && p.exited() {
				return s.startError(fmt.Errorf("%s exited during startup (%v)", p.name, p.err), p)
			}
		}
		ok, msg := probeReady(ctx, hc, s.url+"/readyz")
		if ok {
			return nil
		}
		last = msg
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-deadline.C:
			return s.startError(fmt.Errorf("kube-apiserver at %s not ready after %v (last /readyz: %s)", s.url, timeout, last), s.apiserver)
		case <-tick.C:
		}
	}
}

var errPortTaken = errors.New("a port was taken by another process between choosing and binding it: retry, or pass fixed free ports")

// startError adds the log tail of p and names a busy port when the log says so.
func (s *Server) startError(err error, p *proc) error {
	if p.lostPort() || s.etcd != nil && s.etcd.portLost() {
		err = errors.Join(err, errPortTaken)
	}
	return fmt.Errorf("%w\n--- last lines of the %s log (all logs in %s) ---\n%s", err, p.name, s.dir, p.tail.lastLines(25))
}
