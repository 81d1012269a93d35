package lab

import (
	"sync"

	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/lab/kubeapi"
	"github.com/rackroll/rackroll/internal/lab/redfish"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/placement"
)

// etcdMembers gives every machine that may ever run the control plane a
// member slot: the active KCPs form the cluster at start; the spare, and
// any management server (a failover makes one the spare, a re-placement
// promotes one), join if they boot as, or are relabelled, KCP. Compute
// servers never serve the control plane.
func etcdMembers(inv *model.Inventory, placed []placement.Assignment) []kubeapi.EtcdMember {
	roles := map[string]model.Role{}
	for _, a := range placed {
		roles[a.Name] = a.Role
	}
	var out []kubeapi.EtcdMember
	for _, ref := range inv.Servers() {
		r := roles[ref.Server.Name]
		if r == model.RoleCompute || r == "" {
			continue
		}
		out = append(out, kubeapi.EtcdMember{Name: model.NodeNameOf(ref.Server), BMM: ref.Server.Name,
			Rack: ref.Rack, Initial: r == model.RoleKCP})
	}
	return out
}

// etcdFollows forwards a BMC's state to the machine's etcd member: it runs
// while the machine is on and booted, loses its data on a reimage, and
// joins when the machine boots with the KCP role and no data.
func (l *Lab) etcdFollows(bmm string, st redfish.State) {
	if l.detached || l.Kube == nil || l.Kube.Etcd() == nil {
		return
	}
	up := st.Power == "On" && st.OSRunning
	l.Kube.Etcd().SetMachine(bmm, up, st.Reimaging, l.roles.role(bmm) == model.RoleKCP)
}

// roleTap passes the kubelet simulator's events on and keeps each BMM's
// role as its node's rackroll.io/role label last showed it: the role a
// machine boots with (the ledger relabels a spare it promotes, a KCP it
// retires).
type roleTap struct {
	events.Sink
	mu    sync.Mutex
	roles map[string]model.Role
	kcp   func(bmm string, kcp bool) // told when a role turns to or from kcp
}

func newRoleTap(sink events.Sink, placed []placement.Assignment) *roleTap {
	t := &roleTap{Sink: sink, roles: map[string]model.Role{}}
	for _, a := range placed {
		t.roles[a.Name] = a.Role
	}
	return t
}

func (t *roleTap) Emit(kind, bmm, rack string, detail map[string]any) {
	// A kubelet registering its Node again shows its own --node-labels,
	// perhaps a role rackroll has moved since: no promotion or retirement
	// happened, so the machine's member is left as it is until rackroll
	// relabels the node.
	if reg, _ := detail[events.Registered].(bool); kind == events.NodeLabel && !reg {
		t.mu.Lock()
		was := t.roles[bmm]
		if l, ok := detail["labels"].(map[string]string); ok && l[model.LabelRole] != "" {
			t.roles[bmm] = model.Role(l[model.LabelRole])
		}
		if rm, ok := detail["removed"].([]string); ok {
			for _, k := range rm {
				if k == model.LabelRole {
					delete(t.roles, bmm)
				}
			}
		}
		now, tell := t.roles[bmm], t.kcp
		t.mu.Unlock()
		t.Sink.Emit(kind, bmm, rack, detail)
		if tell != nil && (was == model.RoleKCP) != (now == model.RoleKCP) {
			tell(bmm, now == model.RoleKCP)
		}
		return
	}
	t.Sink.Emit(kind, bmm, rack, detail)
}

// follow makes role changes reach the etcd cluster: a running machine
// given the KCP role joins, as kubeadm's control-plane join does on a
// promoted spare.
func (t *roleTap) follow(c *kubeapi.EtcdCluster) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.kcp = c.SetRole
}

func (t *roleTap) role(bmm string) model.Role {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.roles[bmm]
}

// EtcdSpec is how a client reaches the lab's etcd: the initial members'
// endpoints and the client TLS files in the lab dir.
func (l *Lab) EtcdSpec() *model.EtcdSpec {
	c := l.Kube.Etcd()
	t := c.TLS()
	return &model.EtcdSpec{Endpoints: c.Endpoints(), CAFile: t.CAFile, CertFile: t.CertFile, KeyFile: t.KeyFile}
}
