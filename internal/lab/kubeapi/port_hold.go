package kubeapi

import (
	"syscall"
)

// portHold keeps a member's ports bound while no process of it runs. The
// ports are chosen when the lab starts, and a spare's member binds them
// minutes later, when it joins: in between, another test process drawing
// from the same range (freePorts keeps them apart only within a process)
// saw them free and took one, and the joining member died with "address
// already in use" (a failover that then waited out its whole limit, seen
// in make test). Held, the other process's probe fails and it draws
// another port.
//
// The sockets are bound but never listen, so whoever dials a held port (a
// peer, each of the apiserver's etcd clients) is refused, as by a machine
// whose etcd is down. A listener that accepted and closed made every such
// dial a TCP and TLS handshake: the apiserver's ~60 etcd clients retrying
// a site's spare endpoints were half of an idle apiserver's CPU (pprof).
// Without SO_REUSEADDR on the held socket, a listener's bind (which sets
// it) still fails: Linux lets two sockets share a port only when both ask.
type portHold struct{ fds []int }

func holdPorts(ports ...int) *portHold {
	h := &portHold{}
	for _, p := range ports {
		fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
		if err != nil {
			continue
		}
		if err := syscall.Bind(fd, &syscall.SockaddrInet4{Port: p, Addr: [4]byte{127, 0, 0, 1}}); err != nil {
			syscall.Close(fd) // taken already: the member's start will say so
			continue
		}
		h.fds = append(h.fds, fd)
	}
	return h
}

// release frees the ports for the member about to bind them.
func (h *portHold) release() {
	if h == nil {
		return
	}
	for _, fd := range h.fds {
		syscall.Close(fd)
	}
	h.fds = nil
}
