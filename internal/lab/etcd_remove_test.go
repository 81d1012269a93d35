package lab

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"

	"github.com/rackroll/rackroll/internal/invariants"
	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/model"
)

// A member removed by a client (rackroll retiring a KCP) exits at once; the
// log shows its removal before its stop, so the checker does not count a
// member that had already left as down. (Seen on a two-rack upgrade: the
// removal was listed six seconds after the exit, and lab check reported a
// quorum loss that never happened.)
func TestLabEtcdRemovedMemberIsRemovedBeforeItStops(t *testing.T) {
	if testing.Short() {
		t.Skip("starts three etcd members and kube-apiserver")
	}
	inv, err := model.LoadInventory("../../examples/one-rack.yaml")
	require.NoError(t, err)
	l, err := Start(context.Background(), Options{Inventory: inv, Timings: fastTimings(), NoWorkloads: true})
	require.NoError(t, err)
	defer l.Stop()

	id := memberID(t, l, "rack1-mgmt1")
	require.NotZero(t, id)
	// etcd refuses a removal ("unhealthy cluster") until the other members
	// have been connected for its health interval (5 s); a fresh lab may be
	// younger than that, so try as rackroll's own removal does.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		_, err = l.Kube.Etcd().Client().MemberRemove(ctx, id)
		if !errors.Is(err, rpctypes.ErrUnhealthy) || ctx.Err() != nil {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if errors.Is(err, rpctypes.ErrStopped) {
		// The call went to the member it removed, which stopped before it
		// answered (a busy machine): the member list says whether it went.
		require.Eventually(t, func() bool {
			resp, err := l.Kube.Etcd().Client().MemberList(ctx)
			return err == nil && !slices.ContainsFunc(resp.Members, func(m *etcdserverpb.Member) bool { return m.ID == id })
		}, 30*time.Second, 200*time.Millisecond, "the member is removed")
	} else {
		require.NoError(t, err)
	}
	require.Eventually(t, func() bool { return l.Events.Count(events.EtcdMemberStop, "rack1-mgmt1") == 1 },
		30*time.Second, 50*time.Millisecond, "the removed member exits")

	removed, stopped := -1, -1
	for i, e := range l.Events.Events() {
		if e.BMM != "rack1-mgmt1" {
			continue
		}
		switch e.Kind {
		case events.EtcdMemberRemove:
			removed = i
		case events.EtcdMemberStop:
			stopped = i
		}
	}
	require.NotEqual(t, -1, removed, "the removal is logged")
	require.Less(t, removed, stopped, "removal before stop")
	time.Sleep(time.Second) // a later listing must not log it again
	require.Equal(t, 1, l.Events.Count(events.EtcdMemberRemove, "rack1-mgmt1"))

	site, err := invariants.SiteFromInventory(inv)
	require.NoError(t, err)
	for _, v := range invariants.Check(l.Events.Events(), site) {
		require.NotEqual(t, invariants.RuleEtcdQuorum, v.Rule, "%+v", v)
	}
}
