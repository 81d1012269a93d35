package kubeapi

import (
	"net"
	"strconv"
)

// portHold keeps a member's ports bound while no process of it runs. The
// ports are chosen when the lab starts, and a spare's member binds them
// minutes later, when it joins: in between, another test process drawing
// from the same range (freePorts keeps them apart only within a process)
// saw them free and took one, and the joining member died with "address
// already in use" (a failover that then waited out its whole limit, seen
// in make test). Held, the other process's probe fails and it draws
// another port. Whoever dials a held port (a peer, the apiserver's client)
// is accepted and closed at once: the same quick failure as a refusal.
type portHold struct{ ls []net.Listener }

func holdPorts(ports ...int) *portHold {
	h := &portHold{}
	for _, p := range ports {
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		if err != nil {
			continue // taken already: the member's start will say so
		}
		h.ls = append(h.ls, l)
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return // released
				}
				c.Close()
			}
		}()
	}
	return h
}

// release frees the ports for the member about to bind them.
func (h *portHold) release() {
	if h == nil {
		return
	}
	for _, l := range h.ls {
		l.Close()
	}
	h.ls = nil
}
