package upgrade

import (
	"github.com/rackroll/rackroll/workflows/kernel"
	"go.temporal.io/sdk/workflow"
)

// awaitMember waits, where the site exposes etcd, until a promoted spare's
// member has joined as a healthy voter, before the next KCP step: until
// then the member set has not grown, and the step after a swap (the retire
// of the KCP it replaces) would leave the control plane short.
func (u *upgrade) awaitMember(ctx workflow.Context, bmm string) error {
	if workflow.GetVersion(ctx, changeUpgradeWaitsMemberJoin, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return nil
	}
	m, err := u.memberOf(ctx, bmm)
	if err != nil || m == nil {
		return err
	}
	return m.Await(ctx)
}

// removeMember takes a retiring KCP's member out of etcd before it leaves
// the control plane, so the member set stays the active KCPs: a retired
// spare keeping its member would break quorum the day its machine is
// reimaged or powered off. The set may shrink to the table's active count
// — one on a two-rack site.
func (u *upgrade) removeMember(ctx workflow.Context, bmm string) error {
	if workflow.GetVersion(ctx, changeUpgradeRetireRemovesMember, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return nil
	}
	m, err := u.memberOf(ctx, bmm)
	if err != nil || m == nil {
		return err
	}
	return m.Remove(ctx)
}

// memberOf reads the ledger and returns bmm's member (nil when the site has
// no etcd section).
func (u *upgrade) memberOf(ctx workflow.Context, bmm string) (*kernel.KCPMember, error) {
	cs, err := kernel.LedgerOf(u.in.Cluster).Read(ctx)
	if err != nil {
		return nil, err
	}
	return kernel.MemberOf(cs, bmm), nil
}
