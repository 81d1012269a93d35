package kubeapi

import (
	"fmt"
	"net"
	"strconv"
)

// freePorts asks the kernel for n distinct free loopback ports. There is a
// small window between closing the listeners and the child binding them;
// portBusy turns a lost race into a clear error instead of a hang.
func freePorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	ports := make([]int, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("find a free port on 127.0.0.1: %w", err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
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
