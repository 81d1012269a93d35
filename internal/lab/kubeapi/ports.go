package kubeapi

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
)

// freePorts finds n distinct free loopback ports below the kernel's
// ephemeral range: a port taken from that range may, by the time the child
// binds it, be the local end of any outgoing connection on the machine —
// and a spare's etcd member binds its ports minutes after the lab chose
// them. Outside the range only another listener can take it. There is
// still a small window between closing the listeners and the child binding
// them; portBusy turns a lost race into a clear error instead of a hang,
// and Start retries. Within this process a port is handed out once, so
// labs started side by side never draw the same one.
func freePorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	lo, hi := belowEphemeral()
	ports := make([]int, 0, n)
	for tries := 0; len(ports) < n && tries < 100*n; tries++ {
		port := lo + rand.IntN(hi-lo)
		if !handOut(port) {
			continue // given to another lab of this process
		}
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err != nil {
			continue // taken: draw another
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	for len(ports) < n { // the range is crowded: let the kernel choose
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("find a free port on 127.0.0.1: %w", err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// handedOut are the ports freePorts has returned in this process.
var handedOut = struct {
	sync.Mutex
	ports map[int]bool
}{ports: map[int]bool{}}

// handOut reserves port for the caller, or reports that it was handed out
// before.
func handOut(port int) bool {
	handedOut.Lock()
	defer handedOut.Unlock()
	if handedOut.ports[port] {
		return false
	}
	handedOut.ports[port] = true
	return true
}

// belowEphemeral is the port range the lab draws from: from 20000 up to the
// start of net.ipv4.ip_local_port_range (32768 when it cannot be read).
func belowEphemeral() (lo, hi int) {
	lo, hi = 20000, 32768
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if v, err := strconv.Atoi(f[0]); err == nil && v > lo+1000 {
				hi = v
			}
		}
	}
	return lo, hi
}

// portBusy reports whether something already listens on 127.0.0.1:port.
func portBusy(port int) bool {
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return true
	}
	l.Close()
	return false
}

// portLost: a member's log says it lost a port to another process.
// The apiserver then dies of the missing member, not of the port: its own
// log does not say so (make test saw it).
func (c *EtcdCluster) portLost() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.lost {
		return true
	}
	for _, s := range c.order {
		if s.proc != nil && s.proc.lostPort() {
			return true
		}
	}
	return false
}

// noteLostPort remembers that p, a member's process that has exited, lost
// a port: its slot forgets the process at once, and the apiserver may die
// of the missing member only later (make test saw "exited during startup"
// with no word of the port). Called with c.mu held.
func (c *EtcdCluster) noteLostPort(p *proc) {
	if p.lostPort() {
		c.lost = true
	}
}

// lostPort: p's log says another process held a port it was to bind.
func (p *proc) lostPort() bool { return p.tail.contains("address already in use") }
