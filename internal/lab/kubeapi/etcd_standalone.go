package kubeapi

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/toolbin"
)

// StartEtcd runs only the lab's etcd cluster (no apiserver) under dir, for
// tests of etcd clients, and waits until it serves. Close stops it.
func StartEtcd(ctx context.Context, dir string, members []EtcdMember, sink events.Sink) (_ *EtcdCluster, err error) {
	bin, err := toolbin.Path("etcd")
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(dir, "etcd"), 0o700); err != nil {
		return nil, err
	}
	tls, err := writeEtcdPKI(dir)
	if err != nil {
		return nil, err
	}
	ports, err := freePorts(2 * len(members))
	if err != nil {
		return nil, err
	}
	c, err := newEtcdCluster(bin, filepath.Join(dir, "etcd"), tls, members, ports, sink)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			c.close()
		}
	}()
	if err := c.startInitial(); err != nil {
		return nil, err
	}
	for {
		if p := c.exited(); p != nil {
			return nil, fmt.Errorf("%s exited during startup (%v): %s", p.name, p.err, p.tail.lastLines(20))
		}
		cctx, cancel := context.WithTimeout(ctx, time.Second)
		_, err := c.client.Get(cctx, "health")
		cancel()
		if err == nil {
			return c, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Close stops every member (a StartEtcd cluster; a Server's goes with Stop).
func (c *EtcdCluster) Close() { c.close() }
