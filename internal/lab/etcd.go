package lab

import (
	"sync"

	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/lab/kubeapi"
	"github.com/rackroll/rackroll/internal/lab/redfish"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/placement"
)

// etcdMembers gives every control-plane machine a member slot: the active
// KCPs form the cluster at start, the spare joins if it ever boots as a KCP.
func etcdMembers(inv *model.Inventory, placed []placement.Assignment) []kubeapi.EtcdMember {
	roles := map[string]model.Role{}
	for _, a := range placed {
		roles[a.Name] = a.Role
	}
	var out []kubeapi.EtcdMember
	for _, ref := range inv.Servers() {
		r := roles[ref.Server.Name]
		if !r.IsControlPlane() {
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
	if l.Kube == nil || l.Kube.Etcd() == nil {
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
}

func newRoleTap(sink events.Sink, placed []placement.Assignment) *roleTap {
	t := &roleTap{Sink: sink, roles: map[string]model.Role{}}
	for _, a := range placed {
		t.roles[a.Name] = a.Role
	}
	return t
}

func (t *roleTap) Emit(kind, bmm, rack string, detail map[string]any) {
	if kind == events.NodeLabel {
		t.mu.Lock()
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
		t.mu.Unlock()
	}
	t.Sink.Emit(kind, bmm, rack, detail)
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
