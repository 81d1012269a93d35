package kubeapi

import (
	"errors"
	"testing"
)

// The lab's ports are distinct, free, and below the ephemeral range, where
// no outgoing connection can take them before a member binds them.
func TestFreePortsBelowTheEphemeralRange(t *testing.T) {
	lo, hi := belowEphemeral()
	ports, err := freePorts(20)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, p := range ports {
		if p < lo || p >= hi {
			t.Errorf("port %d outside [%d, %d)", p, lo, hi)
		}
		if seen[p] {
			t.Errorf("port %d twice", p)
		}
		seen[p] = true
		if portBusy(p) {
			t.Errorf("port %d is not free", p)
		}
	}
}

// An apiserver that died because a member lost its port to another
// process is a lost race Start tries again, though only the member's log
// says so.
func TestAMembersLostPortIsARaceToRetry(t *testing.T) {
	member := &proc{name: "etcd", tail: &tailBuffer{max: 1 << 10}}
	api := &proc{name: "kube-apiserver", tail: &tailBuffer{max: 1 << 10}}
	s := &Server{etcd: &EtcdCluster{order: []*slot{{proc: member}}}}
	_, _ = api.tail.Write([]byte("connection refused\n"))
	if errors.Is(s.startError(errors.New("exited"), api), errPortTaken) {
		t.Fatal("no port was lost yet")
	}
	_, _ = member.tail.Write([]byte(`"error":"listen tcp 127.0.0.1:29904: bind: address already in use"` + "\n"))
	if !errors.Is(s.startError(errors.New("exited"), api), errPortTaken) {
		t.Fatal("the member's lost port is not taken for a race")
	}
}

// A member that lost its port and exited is forgotten by its slot before
// the apiserver dies of it: the loss is still a race to retry.
func TestAnExitedMembersLostPortIsARaceToRetry(t *testing.T) {
	member := &proc{name: "etcd", tail: &tailBuffer{max: 1 << 10}}
	api := &proc{name: "kube-apiserver", tail: &tailBuffer{max: 1 << 10}}
	c := &EtcdCluster{order: []*slot{{}}} // the slot's process is gone
	s := &Server{etcd: c}
	_, _ = member.tail.Write([]byte("member exited\n"))
	c.noteLostPort(member)
	if errors.Is(s.startError(errors.New("exited"), api), errPortTaken) {
		t.Fatal("no port was lost")
	}
	_, _ = member.tail.Write([]byte(`"error":"listen tcp 127.0.0.1:28623: bind: address already in use"` + "\n"))
	c.noteLostPort(member)
	if !errors.Is(s.startError(errors.New("exited"), api), errPortTaken) {
		t.Fatal("the exited member's lost port is not taken for a race")
	}
}
