package kubeapi

import (
	"errors"
	"net"
	"strconv"
	"syscall"
	"testing"
)

// A spare's ports stay bound from the lab's start until its member joins:
// another process probing them (as freePorts does) finds them taken, a
// client dialling them is refused, and released they are free for the
// member.
func TestASparesPortsAreHeldUntilItJoins(t *testing.T) {
	ports, err := freePorts(4)
	if err != nil {
		t.Fatal(err)
	}
	c, err := newEtcdCluster("etcd", t.TempDir(), EtcdTLS{}, []EtcdMember{
		{Name: "kcp", Initial: true}, {Name: "spare"}}, ports, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.client.Close()
	spare := c.slots["spare"]
	if spare.hold == nil || c.slots["kcp"].hold != nil {
		t.Fatalf("holds: spare %v, initial member %v; want the spare's only", spare.hold, c.slots["kcp"].hold)
	}
	for _, p := range []int{spare.clientPort, spare.peerPort} {
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(p))
		if l, err := net.Listen("tcp", addr); err == nil {
			l.Close()
			t.Fatalf("port %d free while the spare waits to join: another process could take it", p)
		}
		if conn, err := net.Dial("tcp", addr); err == nil {
			conn.Close()
			t.Fatalf("dial %d connected: a held port must refuse, as a machine whose etcd is down", p)
		} else if !errors.Is(err, syscall.ECONNREFUSED) {
			t.Fatalf("dial %d: %v, want connection refused", p, err)
		}
	}
	spare.hold.release()
	for _, p := range []int{spare.clientPort, spare.peerPort} {
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		if err != nil {
			t.Fatalf("port %d still taken after release: %v", p, err)
		}
		l.Close()
	}
}
