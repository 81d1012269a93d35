package etcd

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/lab/kubeapi"
	"github.com/rackroll/rackroll/internal/model"
)

// appError unwraps the ApplicationError an activity returned.
func appError(t *testing.T, err error) *temporal.ApplicationError {
	t.Helper()
	var ae *temporal.ApplicationError
	require.True(t, errors.As(err, &ae), "want an ApplicationError, got %v", err)
	return ae
}

// The member activities against the lab's three-member etcd: move the
// leader, refuse an unsafe removal, remove a dead member, wait for a
// rejoined one.
func TestMemberActivities(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a three-member etcd")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	log := events.New(nil)
	c, err := kubeapi.StartEtcd(ctx, t.TempDir(), []kubeapi.EtcdMember{
		{Name: "n1", BMM: "m1", Initial: true}, {Name: "n2", BMM: "m2", Initial: true}, {Name: "n3", BMM: "m3", Initial: true},
	}, log)
	require.NoError(t, err)
	defer c.Close()
	tls := c.TLS()
	spec := model.EtcdSpec{Endpoints: c.Endpoints(), CAFile: tls.CAFile, CertFile: tls.CertFile, KeyFile: tls.KeyFile}

	var ts testsuite.WorkflowTestSuite
	env := ts.NewTestActivityEnvironment()
	acts := &Activities{PollInterval: 200 * time.Millisecond}
	env.RegisterActivity(acts)
	moveLeader := func(away string) (string, error) {
		v, err := env.ExecuteActivity(acts.MoveLeader, MoveLeaderInput{Spec: spec, Away: away})
		if err != nil {
			return "", err
		}
		var s string
		require.NoError(t, v.Get(&s))
		return s, nil
	}
	remove := func(name string) error {
		_, err := env.ExecuteActivity(acts.RemoveMember, MemberInput{Spec: spec, Name: name})
		return err
	}
	wait := func(name string, timeout time.Duration) (Member, error) {
		v, err := env.ExecuteActivity(acts.WaitMemberHealthy, WaitMemberInput{Spec: spec, Name: name, Timeout: timeout})
		if err != nil {
			return Member{}, err
		}
		var m Member
		require.NoError(t, v.Get(&m))
		return m, nil
	}

	// Find the leader: moving away from a non-member is a no-op.
	leader, err := moveLeader("nobody")
	require.NoError(t, err)
	require.Contains(t, []string{"n1", "n2", "n3"}, leader)
	var other string
	for _, n := range []string{"n1", "n2", "n3"} {
		if n != leader {
			other = n
			break
		}
	}
	same, err := moveLeader(other)
	require.NoError(t, err)
	require.Equal(t, leader, same, "moving away from a follower changes nothing")
	moved, err := moveLeader(leader)
	require.NoError(t, err)
	require.NotEqual(t, leader, moved)
	again, err := moveLeader("nobody")
	require.NoError(t, err)
	require.Equal(t, moved, again, "the cluster's leader is the one MoveLeader named")

	m, err := wait("n1", 30*time.Second)
	require.NoError(t, err)
	require.True(t, m.Healthy)
	require.False(t, m.Learner)

	// n3 down: removing a healthy member would leave one healthy of two.
	c.SetMachine("m3", false, false, true)
	require.Eventually(t, func() bool { return log.Count(events.EtcdMemberStop, "m3") == 1 }, 30*time.Second, 50*time.Millisecond)
	err = remove("n1")
	require.Error(t, err)
	ae := appError(t, err)
	require.Equal(t, ErrTypeRefused, ae.Type())
	require.True(t, ae.NonRetryable())
	require.Contains(t, err.Error(), "refusing to remove etcd member n1")
	require.Contains(t, err.Error(), "below quorum 2")
	require.Contains(t, err.Error(), "n3 unhealthy")

	// Removing the dead one is safe, and twice is fine.
	require.NoError(t, remove("n3"))
	require.NoError(t, remove("n3"))
	require.Eventually(t, func() bool { return log.Count(events.EtcdMemberRemove, "m3") == 1 }, 10*time.Second, 50*time.Millisecond,
		"the lab reports the client's removal")
	// Two left: removing another would go below the minimum.
	err = remove("n2")
	require.Equal(t, ErrTypeRefused, appError(t, err).Type())
	require.Contains(t, err.Error(), "below the minimum of 2")

	// n3 reimaged and booted as a KCP: it joins; the wait sees it through.
	c.SetMachine("m3", false, true, true)
	c.SetMachine("m3", true, false, true)
	m, err = wait("n3", time.Minute)
	require.NoError(t, err)
	require.True(t, m.Healthy)
	require.False(t, m.Learner)
	require.Zero(t, log.Count(events.EtcdMemberStale, "m3"), "rackroll removed the member first: nothing stale")

	// Removing the leader hands leadership over first: right after the
	// removal a leader answers (a removed leader would leave the cluster
	// leaderless for an election, the API server's writes failing).
	leader, err = moveLeader("nobody")
	require.NoError(t, err)
	require.NoError(t, remove(leader))
	after, err := moveLeader("nobody")
	require.NoError(t, err, "a leader at once")
	require.NotEqual(t, leader, after)

	// Waiting for a member that never comes fails, non-retryably.
	_, err = wait("n9", 500*time.Millisecond)
	ae = appError(t, err)
	require.Equal(t, ErrTypeNotHealthy, ae.Type())
	require.True(t, ae.NonRetryable())
	require.Contains(t, err.Error(), "n9 not a healthy, caught-up voter")
	require.Contains(t, err.Error(), "not in the member list")
}

// Bad input is refused before any dial, naming every problem.
func TestMemberActivitiesBadInput(t *testing.T) {
	var ts testsuite.WorkflowTestSuite
	env := ts.NewTestActivityEnvironment()
	acts := &Activities{}
	env.RegisterActivity(acts)
	_, err := env.ExecuteActivity(acts.RemoveMember, MemberInput{})
	ae := appError(t, err)
	require.Equal(t, ErrTypeConfig, ae.Type())
	require.True(t, ae.NonRetryable())
	require.Contains(t, err.Error(), "controlPlane.etcd.endpoints is empty")
	require.Contains(t, err.Error(), "name is empty")
	_, err = env.ExecuteActivity(acts.MoveLeader, MoveLeaderInput{Spec: model.EtcdSpec{Endpoints: []string{"https://127.0.0.1:1"}, CertFile: "/nonexistent/c.crt", KeyFile: "/nonexistent/c.key"}, Away: "n1"})
	require.Equal(t, ErrTypeConfig, appError(t, err).Type())
	require.Contains(t, err.Error(), "/nonexistent/c.crt")
}
