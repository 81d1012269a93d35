package etcd

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/rackroll/rackroll/internal/etcdquorum"
	"github.com/rackroll/rackroll/internal/model"
)

// DefaultMaxAppliedLag is how many raft entries a member may trail the
// leader by and still count as caught up.
const DefaultMaxAppliedLag = 100

// MoveLeaderInput names the member leadership should move away from.
type MoveLeaderInput struct {
	Spec model.EtcdSpec `json:"spec"`
	Away string         `json:"away"` // member name (the KCP's node name)
}

// MemberInput names one member.
type MemberInput struct {
	Spec model.EtcdSpec `json:"spec"`
	Name string         `json:"name"`
	// KeepAtLeast is the smallest member set the removal may leave
	// (default etcdquorum.MinMembers); 1 for a two-rack site's retire.
	KeepAtLeast int `json:"keepAtLeast,omitempty"`
}

// WaitMemberInput names the member to wait for.
type WaitMemberInput struct {
	Spec    model.EtcdSpec `json:"spec"`
	Name    string         `json:"name"`
	Timeout time.Duration  `json:"timeout"` // default 5m
	// MaxLag is the raft applied-index lag behind the leader that still
	// counts as caught up (default DefaultMaxAppliedLag).
	MaxLag uint64 `json:"maxLag,omitempty"`
}

func (a *Activities) pollInterval() time.Duration {
	if a != nil && a.PollInterval > 0 {
		return a.PollInterval
	}
	return time.Second
}

// connect checks the input and dials.
func (a *Activities) connect(spec model.EtcdSpec, name, field string) (*clientv3.Client, error) {
	errs := specProblems(spec)
	if name == "" {
		errs = append(errs, field+" is empty: give the member's name (the KCP's node name)")
	}
	if len(errs) > 0 {
		return nil, configError("%s", joinLines(errs))
	}
	cli, err := a.dial(spec)
	if err != nil {
		return nil, configError("%v", err)
	}
	return cli, nil
}

// MoveLeader hands leadership from Away to the healthy voter most caught
// up, and returns the leader's name afterwards. When Away does not lead it
// changes nothing and returns the current leader (Cluster API's
// ForwardEtcdLeadership).
func (a *Activities) MoveLeader(ctx context.Context, in MoveLeaderInput) (string, error) {
	cli, err := a.connect(in.Spec, in.Away, "away")
	if err != nil {
		return "", err
	}
	defer cli.Close()
	vs, err := a.membersWithHealth(ctx, cli)
	if err != nil {
		return "", unavailable(err, "list etcd members at %v", in.Spec.Endpoints)
	}
	leader, ok := leaderOf(vs)
	if !ok {
		return "", unavailable(errors.New("no member reports a leader"), "find the etcd leader before moving it away from %s", in.Away)
	}
	if leader.Name != in.Away {
		return leader.Name, nil
	}
	return a.forwardLeadership(ctx, in.Spec, vs, leader)
}

// forwardLeadership hands leadership from leader to the healthy voter most
// caught up and returns its name.
func (a *Activities) forwardLeadership(ctx context.Context, spec model.EtcdSpec, vs []memberView, leader memberView) (string, error) {
	var candidates []memberView
	for _, v := range vs {
		if v.Healthy && !v.Learner && v.Name != leader.Name {
			candidates = append(candidates, v)
		}
	}
	if len(candidates) == 0 {
		return "", refused("cannot move etcd leadership away from %s: no other healthy voting member (%s)", leader.Name, describe(vs))
	}
	sort.SliceStable(candidates, func(i, j int) bool { return candidates[i].applied > candidates[j].applied })
	to := candidates[0]
	// MoveLeader must reach the leader itself.
	lcli, err := a.dial(model.EtcdSpec{Endpoints: []string{leader.ClientURL}, CAFile: spec.CAFile, CertFile: spec.CertFile, KeyFile: spec.KeyFile})
	if err != nil {
		return "", configError("%v", err)
	}
	defer lcli.Close()
	mctx, cancel := context.WithTimeout(ctx, 2*a.requestTimeout())
	_, err = lcli.MoveLeader(mctx, to.id)
	cancel()
	if err != nil {
		return "", unavailable(err, "move etcd leadership from %s to %s", leader.Name, to.Name)
	}
	if activity.IsActivity(ctx) {
		activity.RecordHeartbeat(ctx, "moved leadership to "+to.Name)
	}
	return to.Name, nil
}

// RemoveMember removes the named member. Absent is done. It refuses when
// the removal would leave fewer than two voting members or the healthy
// members left short of their quorum (Cluster API's
// canSafelyRemoveEtcdMember, in internal/etcdquorum). A leading member
// hands its leadership over first.
func (a *Activities) RemoveMember(ctx context.Context, in MemberInput) error {
	cli, err := a.connect(in.Spec, in.Name, "name")
	if err != nil {
		return err
	}
	defer cli.Close()
	vs, err := a.membersWithHealth(ctx, cli)
	if err != nil {
		return unavailable(err, "list etcd members at %v", in.Spec.Endpoints)
	}
	target, ok := findMember(vs, in.Name)
	if !ok {
		return nil
	}
	if ok, why := etcdquorum.CanRemoveKeeping(quorumMembers(vs), in.Name, cmp.Or(in.KeepAtLeast, etcdquorum.MinMembers)); !ok {
		return refused("refusing to remove etcd member %s: %s (members: %s)", in.Name, why, describe(vs))
	}
	// The leader hands over first (Cluster API's ForwardEtcdLeadership
	// before RemoveEtcdMember): removing the leader itself costs an
	// election, seconds in which the API server's writes fail.
	if target.Leader {
		if _, err := a.forwardLeadership(ctx, in.Spec, vs, target); err != nil {
			return err
		}
	}
	// A new leader refuses a removal ("unhealthy cluster") until it has
	// been connected to the rest for etcd's health interval (5 s): wait
	// that out here rather than fail and back off.
	//
	// The request goes to the members that stay (Cluster API excludes the
	// removed machine's member the same way): a member that serves its own
	// removal stops mid-reply ("server stopped"), the removal done.
	keepTalkingTo(cli, target)
	deadline := time.Now().Add(removeSettle)
	for {
		rctx, cancel := context.WithTimeout(ctx, a.requestTimeout())
		_, err = cli.MemberRemove(rctx, target.id)
		cancel()
		if err == nil || errors.Is(err, rpctypes.ErrMemberNotFound) || a.gone(ctx, cli, target) {
			return nil
		}
		if !errors.Is(err, rpctypes.ErrUnhealthy) || time.Now().After(deadline) || !sleepCtx(ctx, a.pollInterval()) {
			return unavailable(err, "remove etcd member %s (%s)", in.Name, target.ID)
		}
	}
}

// keepTalkingTo points the client at every endpoint but the target's,
// when one is left.
func keepTalkingTo(cli *clientv3.Client, target memberView) {
	var rest []string
	for _, e := range cli.Endpoints() {
		if e != target.ClientURL {
			rest = append(rest, e)
		}
	}
	if len(rest) > 0 && len(rest) < len(cli.Endpoints()) {
		cli.SetEndpoints(rest...)
	}
}

// gone reports whether a fresh member list no longer holds the target: a
// removal's failed reply is not evidence that it did not happen.
func (a *Activities) gone(ctx context.Context, cli *clientv3.Client, target memberView) bool {
	lctx, cancel := context.WithTimeout(ctx, a.requestTimeout())
	defer cancel()
	list, err := cli.MemberList(lctx)
	if err != nil {
		return false
	}
	for _, m := range list.Members {
		if m.ID == target.id {
			return false
		}
	}
	return true
}

// removeSettle bounds the wait for a new leader to accept a removal.
const removeSettle = 15 * time.Second

// WaitMemberHealthy waits, heartbeating, until the named member is a
// voter, answers status, and trails the leader's applied index by at most
// MaxLag. It fails non-retryably after Timeout with what it last saw.
func (a *Activities) WaitMemberHealthy(ctx context.Context, in WaitMemberInput) (Member, error) {
	cli, err := a.connect(in.Spec, in.Name, "name")
	if err != nil {
		return Member{}, err
	}
	defer cli.Close()
	timeout, maxLag := in.Timeout, in.MaxLag
	if timeout <= 0 {
		timeout = 5 * time.Minute
	}
	if maxLag == 0 {
		maxLag = DefaultMaxAppliedLag
	}
	deadline := time.Now().Add(timeout)
	for {
		m, why := a.memberReady(ctx, cli, in.Name, maxLag)
		if why == "" {
			return m, nil
		}
		activity.RecordHeartbeat(ctx, why)
		if time.Now().After(deadline) {
			return m, temporal.NewNonRetryableApplicationError(
				fmt.Sprintf("etcd member %s not a healthy, caught-up voter after %v: %s", in.Name, timeout, why), ErrTypeNotHealthy, nil)
		}
		select {
		case <-ctx.Done():
			return m, ctx.Err()
		case <-time.After(a.pollInterval()):
		}
	}
}

// memberReady returns the member and "" when it is ready, else why not.
func (a *Activities) memberReady(ctx context.Context, cli *clientv3.Client, name string, maxLag uint64) (Member, string) {
	vs, err := a.membersWithHealth(ctx, cli)
	if err != nil {
		return Member{Name: name}, "member list unreadable: " + err.Error()
	}
	m, ok := findMember(vs, name)
	switch {
	case !ok:
		return Member{Name: name}, "not in the member list (" + describe(vs) + ")"
	case m.Learner:
		return m.Member, "still a learner"
	case !m.Healthy:
		return m.Member, "status unanswered: " + m.Err
	}
	leader, ok := leaderOf(vs)
	if !ok {
		return m.Member, "no leader"
	}
	if leader.applied > m.applied && leader.applied-m.applied > maxLag {
		return m.Member, fmt.Sprintf("applied index %d trails leader %s's %d by more than %d", m.applied, leader.Name, leader.applied, maxLag)
	}
	return m.Member, ""
}

// sleepCtx waits d, or reports false when ctx ends first.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	select {
	case <-ctx.Done():
		return false
	case <-time.After(d):
		return true
	}
}
