package kubeapi

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"

	"github.com/rackroll/rackroll/internal/lab/events"
)

// joinRetry is how long a boot waits before trying a failed join again (the
// cluster may have no quorum until another member comes back).
const joinRetry = time.Second

// SetMachine tells the cluster what the machine bmm is doing: up when
// powered and booted into its OS, reimaging while its disk is rewritten
// (the member's data goes), and kcp whether it carries the KCP role as it
// boots. Unknown machines are ignored. It never blocks on etcd: a
// goroutine per member acts on it.
func (c *EtcdCluster) SetMachine(bmm string, up, reimaging, kcp bool) {
	c.mu.Lock()
	s, ok := c.slots[bmm]
	if !ok || c.closing {
		c.mu.Unlock()
		return
	}
	if reimaging {
		s.wipe = true
	}
	if up && !s.up {
		s.boot, s.bootKCP = true, kcp
	}
	if !up {
		s.boot = false
	}
	s.up = up
	c.mu.Unlock()
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// SetRole tells the cluster the machine bmm's role turned to (kcp) or
// from KCP. A running machine that becomes a KCP and runs no member joins
// now, the way a promoted spare runs kubeadm's control-plane join; one that
// stops being a KCP keeps its member until it next boots (removing it is
// the operator's job, which the checker holds rackroll to).
func (c *EtcdCluster) SetRole(bmm string, kcp bool) {
	c.mu.Lock()
	s, ok := c.slots[bmm]
	if !ok || c.closing {
		c.mu.Unlock()
		return
	}
	promoted := kcp && !s.bootKCP && s.up && s.proc == nil
	s.bootKCP = kcp
	if promoted {
		s.boot = true
	}
	c.mu.Unlock()
	if promoted {
		select {
		case s.kick <- struct{}{}:
		default:
		}
	}
}

// follow acts on s's machine changes, one at a time.
func (c *EtcdCluster) follow(s *slot) {
	defer c.wg.Done()
	for {
		select {
		case <-c.stop:
			return
		case <-s.kick:
		}
		c.mu.Lock()
		up, wipe, boot, kcp := s.up, s.wipe, s.boot, s.bootKCP
		s.wipe, s.boot = false, false
		c.mu.Unlock()
		if !up || wipe {
			c.halt(s, wipe)
		}
		if wipe {
			_ = os.RemoveAll(s.dataDir)
		}
		if !boot || !up || !kcp {
			continue
		}
		if err := c.bootMember(s); err != nil {
			c.mu.Lock()
			s.boot = s.up // try again while the machine stays up
			c.mu.Unlock()
			time.AfterFunc(joinRetry, func() {
				select {
				case s.kick <- struct{}{}:
				default:
				}
			})
		}
	}
}

// bootMember starts s's member as its machine boots: from its own data when
// it has some and the cluster has not removed it, otherwise by joining.
func (c *EtcdCluster) bootMember(s *slot) error {
	if hasMemberData(s.dataDir) {
		removed := false
		ctx, cancel := c.call(2 * time.Second)
		resp, err := c.client.MemberList(ctx)
		cancel()
		if err == nil && s.id != 0 {
			removed = !slices.ContainsFunc(resp.Members, func(m *memberT) bool { return m.ID == s.id })
		}
		if !removed {
			// Without quorum the list cannot be read: restarting from its
			// data is exactly what brings quorum back.
			return c.launch(s, s.Name+"="+s.peerURL(), "existing")
		}
		_ = os.RemoveAll(s.dataDir)
	}
	return c.join(s)
}

// join adds s as a learner, starts it with --initial-cluster-state existing
// and promotes it once it has caught up: kubeadm's control-plane join with
// learner mode (the default since Kubernetes 1.32), chosen because a new
// voter counts toward quorum before it has any data, so a 3-member cluster
// with one member down would lose quorum the moment a fourth voter that has
// not started yet is added; a learner changes nothing until promoted.
func (c *EtcdCluster) join(s *slot) error {
	c.memberOps.Lock()
	defer c.memberOps.Unlock()
	ctx, cancel := c.call(10 * time.Second)
	defer cancel()
	list, err := c.client.MemberList(ctx)
	if err != nil {
		return err
	}
	for _, m := range list.Members {
		if m.Name != s.Name && !slices.Contains(m.PeerURLs, s.peerURL()) {
			continue
		}
		id := fmt.Sprintf("%x", m.ID)
		c.sink.Emit(events.EtcdMemberStale, s.BMM, s.Rack, map[string]any{"member": s.Name, "id": id,
			"why": "a member of this name was still in the member list when the machine joined with no data: it was not removed before the disk was wiped"})
		if _, err := c.client.MemberRemove(ctx, m.ID); err != nil && !errors.Is(err, rpctypes.ErrMemberNotFound) {
			return err
		}
		c.forget(m.ID)
		c.sink.Emit(events.EtcdMemberRemove, s.BMM, s.Rack, map[string]any{"member": s.Name, "id": id, "by": "lab", "reason": "stale"})
	}
	add, err := c.client.MemberAddAsLearner(ctx, []string{s.peerURL()})
	if err != nil {
		return err
	}
	c.mu.Lock()
	s.id, s.left = add.Member.ID, false
	c.known[add.Member.ID] = s.Name
	c.mu.Unlock()
	c.sink.Emit(events.EtcdMemberAdd, s.BMM, s.Rack, map[string]any{"member": s.Name, "id": fmt.Sprintf("%x", add.Member.ID), "learner": true})
	var peers []string
	for _, m := range add.Members {
		name := m.Name
		if m.ID == add.Member.ID {
			name = s.Name
		}
		if name == "" || len(m.PeerURLs) == 0 {
			continue // another member added but never started: not ours to name
		}
		peers = append(peers, name+"="+m.PeerURLs[0])
	}
	if err := c.launch(s, strings.Join(peers, ","), "existing"); err != nil {
		return err
	}
	c.wg.Add(1)
	go c.promote(s, add.Member.ID)
	return nil
}

// promote turns the learner id into a voter once etcd accepts (it refuses
// until the learner has caught up with the leader).
func (c *EtcdCluster) promote(s *slot, id uint64) {
	defer c.wg.Done()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		select {
		case <-c.stop:
			return
		case <-time.After(200 * time.Millisecond):
		}
		c.mu.Lock()
		gone := s.id != id || s.proc == nil
		c.mu.Unlock()
		if gone {
			return
		}
		ctx, cancel := c.call(2 * time.Second)
		_, err := c.client.MemberPromote(ctx, id)
		cancel()
		if err == nil {
			c.sink.Emit(events.EtcdMemberPromote, s.BMM, s.Rack, map[string]any{"member": s.Name, "id": fmt.Sprintf("%x", id)})
			return
		}
		if errors.Is(err, rpctypes.ErrMemberNotFound) || errors.Is(err, rpctypes.ErrMemberNotLearner) {
			return
		}
	}
}

// forget drops id from the known member set (the lab removed it itself).
func (c *EtcdCluster) forget(id uint64) {
	c.mu.Lock()
	delete(c.known, id)
	c.mu.Unlock()
}

// hasMemberData reports whether dir holds an etcd member's data.
func hasMemberData(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "member", "wal"))
	return err == nil
}
