package kubeapi

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/transport"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/rackroll/rackroll/internal/lab/events"
)

// EtcdMember is one control-plane machine that may run an etcd member.
type EtcdMember struct {
	// Name is the member's name: the KCP's node name (kubeadm's convention).
	Name string
	// BMM and Rack attribute the member's events to its machine.
	BMM, Rack string
	// Initial members form the cluster at Start (the active KCPs). The
	// others (a spare) get ports and join when they boot as a KCP.
	Initial bool
}

// EtcdCluster is the lab's etcd: one process per running member, client
// traffic over TLS with client certificates, peer traffic plain HTTP on
// loopback. Members follow their machines (SetMachine): they stop when the
// machine goes down, lose their data on a reimage, and join the way a
// kubeadm control-plane join does when a KCP boots without member data.
type EtcdCluster struct {
	bin  string
	dir  string // data dirs and logs
	tls  EtcdTLS
	sink events.Sink

	client *clientv3.Client
	status statusConns // the watcher's connection per member
	stop   chan struct{}
	wg     sync.WaitGroup

	mu      sync.Mutex
	slots   map[string]*slot // by BMM (Name when BMM is empty)
	order   []*slot
	closing bool
	leader  string
	known   map[uint64]string // member ID -> name, as last listed
	listed  bool              // the watcher has listed once (what it knew at start is no change)
	lost    bool              // a member exited having lost a port (ports.go)
	// memberOps serialises the lab's own member changes with the watcher's
	// listing, so the watcher never reports the lab's change as a client's.
	memberOps sync.Mutex
}

// slot is one machine's member, running or not.
type slot struct {
	EtcdMember
	clientPort, peerPort int
	dataDir, logPath     string
	proc                 *proc
	id                   uint64 // the current incarnation's member ID (0: unknown)
	left                 bool   // this incarnation's removal is in the log
	up, bootKCP          bool   // machine powered and booted; KCP role at its last boot
	boot, wipe           bool   // pending: a boot to act on, a reimage to wipe for
	kick                 chan struct{}
	hold                 *portHold // its ports while no process of it runs
	starting             bool      // launch has released the hold and not yet set proc
}

func (s *slot) key() string {
	if s.BMM != "" {
		return s.BMM
	}
	return s.Name
}

func (s *slot) clientURL() string { return fmt.Sprintf("https://127.0.0.1:%d", s.clientPort) }
func (s *slot) peerURL() string   { return fmt.Sprintf("http://127.0.0.1:%d", s.peerPort) }

// newEtcdCluster prepares slots; ports holds a client and a peer port per
// member, in order.
func newEtcdCluster(bin, dir string, tls EtcdTLS, members []EtcdMember, ports []int, sink events.Sink) (*EtcdCluster, error) {
	if sink == nil {
		sink = (*events.Log)(nil)
	}
	c := &EtcdCluster{bin: bin, dir: dir, tls: tls, sink: sink, stop: make(chan struct{}),
		slots: map[string]*slot{}, known: map[uint64]string{}}
	var endpoints []string
	for i, m := range members {
		s := &slot{EtcdMember: m, clientPort: ports[2*i], peerPort: ports[2*i+1],
			dataDir: filepath.Join(dir, m.Name), logPath: filepath.Join(dir, m.Name+".log"),
			up: true, bootKCP: m.Initial, kick: make(chan struct{}, 1)}
		if _, dup := c.slots[s.key()]; dup {
			return nil, fmt.Errorf("etcd member %q given twice", s.key())
		}
		if !m.Initial {
			s.hold = holdPorts(s.clientPort, s.peerPort) // until it joins
		}
		c.slots[s.key()] = s
		c.order = append(c.order, s)
		endpoints = append(endpoints, s.clientURL())
	}
	tc, err := (transport.TLSInfo{TrustedCAFile: tls.CAFile, CertFile: tls.CertFile, KeyFile: tls.KeyFile}).ClientConfig()
	if err != nil {
		return nil, err
	}
	c.status.tls = tc
	c.client, err = clientv3.New(clientv3.Config{Endpoints: endpoints, TLS: tc, DialTimeout: 2 * time.Second,
		Logger: quietLogger()})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// startInitial launches every initial member at once (a new cluster needs
// a quorum of them up to elect a leader) and the goroutines that follow
// machines and the leader.
func (c *EtcdCluster) startInitial() error {
	var peers []string
	for _, s := range c.order {
		if s.Initial {
			peers = append(peers, s.Name+"="+s.peerURL())
		}
	}
	initial := strings.Join(peers, ",")
	// Every add before any start: the member set is whole from the first
	// start on, as in etcd itself.
	for _, s := range c.order {
		if s.Initial {
			c.sink.Emit(events.EtcdMemberAdd, s.BMM, s.Rack, map[string]any{"member": s.Name, "initial": true})
		}
	}
	for _, s := range c.order {
		if !s.Initial {
			continue // a spare: up (machines start running) but no KCP
		}
		if err := c.launch(s, initial, "new"); err != nil {
			return err
		}
	}
	for _, s := range c.order {
		c.wg.Add(1)
		go c.follow(s)
	}
	c.wg.Add(1)
	go c.watch()
	return nil
}

// launch starts s's process and emits etcd-member-start.
func (c *EtcdCluster) launch(s *slot, initialCluster, state string) error {
	f, err := os.OpenFile(s.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	c.mu.Lock()
	s.hold.release()
	s.hold, s.starting = nil, true
	c.mu.Unlock()
	p, err := startProc("etcd "+s.Name, c.bin, memberArgs(s, c.tls, initialCluster, state), f, f)
	c.mu.Lock()
	s.starting = false
	if err == nil {
		s.proc = p
	}
	c.mu.Unlock()
	if err != nil {
		f.Close()
		c.rehold(s)
		return err
	}
	c.sink.Emit(events.EtcdMemberStart, s.BMM, s.Rack, map[string]any{"member": s.Name})
	go func() {
		<-p.done
		f.Close()
		c.mu.Lock()
		mine := s.proc == p // nil when the lab stopped it
		if mine {
			s.proc = nil
		}
		c.noteLostPort(p)
		closing := c.closing
		c.mu.Unlock()
		c.rehold(s)
		if mine && !closing && (p.tail.contains("must be removed") || c.listedNoMore(s)) {
			c.removedItself(s)
		}
		if mine && !closing {
			// Why it exited is in its last lines (a port taken, a data dir
			// it refused): the event says so rather than a bare status.
			c.sink.Emit(events.EtcdMemberStop, s.BMM, s.Rack, map[string]any{"member": s.Name, "exited": fmt.Sprint(p.err), "log": p.tail.lastLines(3)})
		}
	}()
	return nil
}

// removedItself records the removal of s's member, which etcd has just told
// it of: a removed member exits at once, often before watchMembers lists
// the members again (seconds, when it was the endpoint the client used), and
// the log must show the removal before the stop, in the order they happened,
// or the checker sees quorum lost on a two-member set.
//
// A member removed before watchMembers first listed it (a lab seconds old)
// is not known yet; its removal is logged all the same, once.
func (c *EtcdCluster) removedItself(s *slot) {
	c.mu.Lock()
	id := s.id
	name, known := c.known[id]
	delete(c.known, id)
	log := known || !s.left
	if !known {
		name = s.Name
	}
	s.left = true
	c.mu.Unlock()
	if !log {
		return
	}
	d := map[string]any{"member": name, "by": "client"}
	if id != 0 {
		d["id"] = fmt.Sprintf("%x", id)
	}
	c.sink.Emit(events.EtcdMemberRemove, s.BMM, s.Rack, d)
}

// listedNoMore reports whether the member list, read now, no longer holds
// s (by its ID once known, else by name): a removed member on a busy
// machine may exit before it logs why, and its removal must still be
// logged before its stop.
func (c *EtcdCluster) listedNoMore(s *slot) bool {
	c.mu.Lock()
	id := s.id
	c.mu.Unlock()
	ctx, cancel := c.call(2 * time.Second)
	defer cancel()
	resp, err := c.client.MemberList(ctx)
	if err != nil {
		return false
	}
	return !slices.ContainsFunc(resp.Members, func(m *memberT) bool {
		return (id != 0 && m.ID == id) || (id == 0 && m.Name == s.Name)
	})
}

// stopGrace bounds a member's graceful stop (its leadership transfer).
const stopGrace = 3 * time.Second

// halt stops s's process (if running) and emits etcd-member-stop.
func (c *EtcdCluster) halt(s *slot, wiped bool) {
	c.mu.Lock()
	p := s.proc
	s.proc = nil
	c.mu.Unlock()
	if p == nil {
		return
	}
	// SIGTERM: etcd hands its leadership to a peer before it exits, as it
	// does when the OS shuts down its static pod. A hard kill of the leader
	// would cost an election (one to two seconds without an API) on every
	// KCP reboot; moving leadership ahead of a disruption is rackroll's job
	// (MoveLeader), and the lab does not punish a lack of it.
	p.stop(stopGrace)
	c.sink.Emit(events.EtcdMemberStop, s.BMM, s.Rack, map[string]any{"member": s.Name, "wiped": wiped})
}

// Endpoints are the client URLs of every slot, the initial members' first
// (the apiserver's --etcd-servers and the out-inventory's): a spare that
// joins later serves on its slot's URL, and once the last initial member
// has retired and been removed the API must still reach etcd through it.
// An endpoint with no member behind it is skipped by the clients.
func (c *EtcdCluster) Endpoints() []string {
	var out, later []string
	for _, s := range c.order {
		if s.Initial {
			out = append(out, s.clientURL())
		} else {
			later = append(later, s.clientURL())
		}
	}
	return append(out, later...)
}

// TLS names the PKI files.
func (c *EtcdCluster) TLS() EtcdTLS { return c.tls }

// Client is the lab's own client (all members' endpoints, client cert).
func (c *EtcdCluster) Client() *clientv3.Client { return c.client }

// Running lists the names of the members whose process runs, in order.
func (c *EtcdCluster) Running() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, s := range c.order {
		if s.proc != nil && !s.proc.exited() {
			out = append(out, s.Name)
		}
	}
	return out
}

// Leader is the member name the watcher last saw as leader ("" none).
func (c *EtcdCluster) Leader() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.leader
}

// pids lists the running members' process ids.
func (c *EtcdCluster) pids() []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []int
	for _, s := range c.order {
		if s.proc != nil && s.proc.cmd.Process != nil && !s.proc.exited() {
			out = append(out, s.proc.cmd.Process.Pid)
		}
	}
	return out
}

// exited returns the first member that died, for start-up errors.
func (c *EtcdCluster) exited() *proc {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range c.order {
		if s.Initial && s.proc != nil && s.proc.exited() {
			return s.proc
		}
	}
	return nil
}

// rehold holds s's ports again once no process of it runs (until its
// next launch), unless the lab is closing.
func (c *EtcdCluster) rehold(s *slot) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closing || s.starting || s.hold != nil || (s.proc != nil && !s.proc.exited()) {
		return
	}
	s.hold = holdPorts(s.clientPort, s.peerPort)
}

// close stops everything without emitting events: the lab is going away.
func (c *EtcdCluster) close() {
	c.mu.Lock()
	if c.closing {
		c.mu.Unlock()
		return
	}
	c.closing = true
	var ps []*proc
	for _, s := range c.order {
		if s.proc != nil {
			ps = append(ps, s.proc)
		}
		s.hold.release()
		s.hold = nil
	}
	c.mu.Unlock()
	close(c.stop)
	c.client.Close()
	for _, p := range ps {
		p.kill()
	}
	c.wg.Wait()
	c.status.close() // after the watcher, which opens them
}

// call bounds one call of the lab's client.
func (c *EtcdCluster) call(d time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	go func() {
		select {
		case <-c.stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

// quietLogger keeps the lab client's retries out of test output.
func quietLogger() *zap.Logger { return zap.NewNop() }
