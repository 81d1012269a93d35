package kubeapi

import (
	"context"
	"crypto/tls"
	"sync"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// statusConns keeps one connection per member for the watcher, which asks
// every running member for its status four times a second.
// clientv3's Maintenance.Status(ctx, endpoint) dials a new connection per
// call: a TLS handshake on both sides each time, two fifths of an idle
// member's CPU (pprof of a four-rack lab). A connection that fails is
// dropped, so a member back from a reboot is reached by a fresh dial at
// the next round, not after gRPC's reconnect backoff.
type statusConns struct {
	mu  sync.Mutex
	tls *tls.Config
	by  map[string]*clientv3.Client // by client URL
}

// memberStatus asks the member at url for its status (term, leader).
func (c *EtcdCluster) memberStatus(ctx context.Context, url string) (*etcdserverpb.StatusResponse, error) {
	cli, err := c.status.get(url)
	if err != nil {
		return nil, err
	}
	st, err := etcdserverpb.NewMaintenanceClient(cli.ActiveConnection()).Status(ctx, &etcdserverpb.StatusRequest{})
	if err != nil {
		c.status.drop(url, cli)
	}
	return st, err
}

func (s *statusConns) get(url string) (*clientv3.Client, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cli := s.by[url]; cli != nil {
		return cli, nil
	}
	// No DialTimeout: the client connects in the background and the call's
	// own deadline bounds the first round.
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{url}, TLS: s.tls, Logger: quietLogger()})
	if err != nil {
		return nil, err
	}
	if s.by == nil {
		s.by = map[string]*clientv3.Client{}
	}
	s.by[url] = cli
	return cli, nil
}

func (s *statusConns) drop(url string, cli *clientv3.Client) {
	s.mu.Lock()
	if s.by[url] == cli {
		delete(s.by, url)
	}
	s.mu.Unlock()
	cli.Close()
}

func (s *statusConns) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for url, cli := range s.by {
		cli.Close()
		delete(s.by, url)
	}
}
