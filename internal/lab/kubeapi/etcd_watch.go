package kubeapi

import (
	"fmt"
	"time"

	"go.etcd.io/etcd/api/v3/etcdserverpb"

	"github.com/rackroll/rackroll/internal/lab/events"
)

type memberT = etcdserverpb.Member

// watchPeriod is how often the watcher asks the members who leads and who
// is in the member list.
const watchPeriod = 250 * time.Millisecond

// watch records leader changes and member-list changes the lab did not make
// itself (rackroll's MemberRemove, for one) as events.
func (c *EtcdCluster) watch() {
	defer c.wg.Done()
	t := time.NewTicker(watchPeriod)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
		}
		c.watchLeader()
		c.watchMembers()
	}
}

// watchLeader asks every running member for its status and believes the
// one with the highest raft term: a member cut off from the rest keeps an
// old term, and one without a leader reports none.
func (c *EtcdCluster) watchLeader() {
	c.mu.Lock()
	var running []*slot
	for _, s := range c.order {
		if s.proc != nil && !s.proc.exited() {
			running = append(running, s)
		}
	}
	c.mu.Unlock()
	var term, leader uint64
	for _, s := range running {
		ctx, cancel := c.call(watchPeriod)
		st, err := c.memberStatus(ctx, s.clientURL())
		cancel()
		if err != nil {
			continue
		}
		if st.RaftTerm > term || (st.RaftTerm == term && leader == 0) {
			term, leader = st.RaftTerm, st.Leader
		}
	}
	c.mu.Lock()
	name := c.known[leader]
	if leader == 0 {
		name = ""
	}
	if name == "" && leader != 0 {
		name = fmt.Sprintf("%x", leader) // not listed yet; the next round names it
	}
	changed := name != c.leader
	c.leader = name
	var bmm, rack string
	for _, s := range c.order {
		if s.Name == name {
			bmm, rack = s.BMM, s.Rack
		}
	}
	c.mu.Unlock()
	if changed {
		c.sink.Emit(events.EtcdLeader, bmm, rack, map[string]any{"leader": name, "term": term})
	}
}

// watchMembers lists the members and reports additions and removals the
// lab did not make.
func (c *EtcdCluster) watchMembers() {
	c.memberOps.Lock()
	defer c.memberOps.Unlock()
	ctx, cancel := c.call(watchPeriod)
	resp, err := c.client.MemberList(ctx)
	cancel()
	if err != nil {
		return // no quorum, or nobody up: nothing to learn
	}
	seen := map[uint64]bool{}
	type change struct {
		kind, name string
		id         uint64
		learner    bool
	}
	var changes []change
	c.mu.Lock()
	first := !c.listed
	c.listed = true
	for _, m := range resp.Members {
		seen[m.ID] = true
		name := m.Name
		if s := c.slotByPeer(m.PeerURLs); s != nil {
			name = s.Name
			if s.id == 0 {
				s.id = m.ID
			}
		}
		if old, ok := c.known[m.ID]; ok && old == name {
			continue
		}
		if _, ok := c.known[m.ID]; !ok && !first {
			changes = append(changes, change{events.EtcdMemberAdd, name, m.ID, m.IsLearner})
		}
		c.known[m.ID] = name
	}
	for id, name := range c.known {
		if !seen[id] {
			delete(c.known, id)
			if s := c.slotByName(name); s != nil {
				s.left = true
			}
			changes = append(changes, change{events.EtcdMemberRemove, name, id, false})
		}
	}
	c.mu.Unlock()
	for _, ch := range changes {
		var bmm, rack string
		if s := c.slotByName(ch.name); s != nil {
			bmm, rack = s.BMM, s.Rack
		}
		d := map[string]any{"member": ch.name, "id": fmt.Sprintf("%x", ch.id), "by": "client"}
		if ch.learner {
			d["learner"] = true
		}
		c.sink.Emit(ch.kind, bmm, rack, d)
	}
}

func (c *EtcdCluster) slotByPeer(urls []string) *slot {
	for _, s := range c.order {
		for _, u := range urls {
			if u == s.peerURL() {
				return s
			}
		}
	}
	return nil
}

func (c *EtcdCluster) slotByName(name string) *slot {
	for _, s := range c.order {
		if s.Name == name {
			return s
		}
	}
	return nil
}
