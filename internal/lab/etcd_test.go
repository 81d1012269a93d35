package lab

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rackroll/rackroll/activities/bmc"
	"github.com/rackroll/rackroll/internal/invariants"
	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/model"
)

// bmcOf is the bmc activities' endpoint of a lab machine, with the
// out-inventory's credential files.
func bmcOf(t *testing.T, l *Lab, out *model.Inventory, name string) bmc.Endpoint {
	t.Helper()
	for _, s := range out.Servers() {
		if s.Server.Name == name {
			ref := out.BMCCredentials[s.Server.BMC.Credentials]
			return bmc.Endpoint{BMM: name, Address: s.Server.BMC.Address, CAFile: s.Server.BMC.CAFile,
				Credentials: bmc.CredentialRef{UsernameFile: ref.UsernameFile, PasswordFile: ref.PasswordFile}}
		}
	}
	t.Fatalf("no BMM %s", name)
	return bmc.Endpoint{}
}

func apiAnswers(l *Lab) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	_, err := l.Kube.Client().CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	return err == nil
}

func memberID(t *testing.T, l *Lab, name string) uint64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp, err := l.Kube.Etcd().Client().MemberList(ctx)
	require.NoError(t, err)
	for _, m := range resp.Members {
		if m.Name == name {
			return m.ID
		}
	}
	return 0
}

// One rack, three KCPs: three members behind the API; a reimaged KCP
// rejoins as a new member; one KCP off keeps the API, two stop it, and the
// checker's quorum rule says so.
func TestLabEtcdFollowsTheKCPs(t *testing.T) {
	if testing.Short() {
		t.Skip("starts three etcd members and kube-apiserver")
	}
	inv, err := model.LoadInventory("../../examples/one-rack.yaml")
	require.NoError(t, err)
	began := time.Now()
	l, err := Start(context.Background(), Options{Inventory: inv, Timings: fastTimings(), NoWorkloads: true})
	require.NoError(t, err)
	defer l.Stop()
	t.Logf("one-rack lab up in %v", time.Since(began).Round(time.Millisecond))
	out := l.OutInventory()
	require.NotNil(t, out.ControlPlane)
	require.NotNil(t, out.ControlPlane.Etcd)
	spec := out.ControlPlane.Etcd
	require.Len(t, spec.Endpoints, 3)
	for _, f := range []string{spec.CAFile, spec.CertFile, spec.KeyFile} {
		require.True(t, strings.HasPrefix(f, l.Dir), "%s is in the lab dir %s", f, l.Dir)
		_, err := os.Stat(f)
		require.NoError(t, err)
	}
	require.Equal(t, []string{"rack1-mgmt1", "rack1-mgmt2", "rack1-mgmt3"}, l.Kube.Etcd().Running())

	var ts testsuite.WorkflowTestSuite
	aenv := ts.NewTestActivityEnvironment()
	acts := &bmc.Activities{PollInterval: 100 * time.Millisecond}
	aenv.RegisterActivity(acts)

	// A reimage wipes rack1-mgmt3's member; booting as a KCP it joins anew
	// (nobody removed the old member: the lab removes it and says so).
	before := memberID(t, l, "rack1-mgmt3")
	_, err = aenv.ExecuteActivity(acts.Reimage, bmc.ReimageInput{Endpoint: bmcOf(t, l, out, "rack1-mgmt3"),
		ImageURL: inv.ImageURL("4.2.0"), Version: "4.2.0"})
	require.NoError(t, err)
	require.Eventually(t, func() bool { return l.Events.Count(events.EtcdMemberPromote, "rack1-mgmt3") == 1 },
		60*time.Second, 100*time.Millisecond, "rack1-mgmt3 rejoins etcd")
	after := memberID(t, l, "rack1-mgmt3")
	require.NotZero(t, after)
	require.NotEqual(t, before, after, "a new member, not the old one")
	require.Equal(t, 1, l.Events.Count(events.EtcdMemberStale, "rack1-mgmt3"))
	require.Equal(t, 1, l.Events.Count(events.EtcdMemberStop, "rack1-mgmt3"))

	// One KCP off: its member stops, the API answers.
	_, err = aenv.ExecuteActivity(acts.PowerOff, bmc.PowerOffInput{Endpoint: bmcOf(t, l, out, "rack1-mgmt1"), SkipShutdown: true})
	require.NoError(t, err)
	require.Eventually(t, func() bool { return !slices.Contains(l.Kube.Etcd().Running(), "rack1-mgmt1") },
		30*time.Second, 50*time.Millisecond)
	require.True(t, apiAnswers(l), "two of three members keep the API")

	// Two off: no quorum, no API.
	_, err = aenv.ExecuteActivity(acts.PowerOff, bmc.PowerOffInput{Endpoint: bmcOf(t, l, out, "rack1-mgmt2"), SkipShutdown: true})
	require.NoError(t, err)
	require.Eventually(t, func() bool { return !apiAnswers(l) }, 60*time.Second, 100*time.Millisecond,
		"the API stops answering with one of three members")

	site, err := invariants.SiteFromInventory(inv)
	require.NoError(t, err)
	var quorum []invariants.Violation
	for _, v := range invariants.Check(l.Events.Events(), site) {
		if v.Rule == invariants.RuleEtcdQuorum {
			quorum = append(quorum, v)
		}
	}
	require.Len(t, quorum, 1, "one quorum loss")
	require.Equal(t, "rack1-mgmt2", quorum[0].BMM)
	require.Contains(t, quorum[0].Detail, "only 1 of 3 voting etcd members run")
}

// A two-rack site has one KCP, so one member. With lab.etcdDetached the
// member outlives its machine: powering the KCP off leaves the API up.
func TestLabEtcdTwoRackHasOneMember(t *testing.T) {
	if testing.Short() {
		t.Skip("starts etcd and kube-apiserver")
	}
	inv, err := model.LoadInventory("../../examples/two-rack.yaml")
	require.NoError(t, err)
	inv.Lab = []byte(`{"etcdDetached": true}`)
	l, err := Start(context.Background(), Options{Inventory: inv, Timings: fastTimings(), NoWorkloads: true})
	require.NoError(t, err)
	defer l.Stop()
	require.Equal(t, []string{"rack1-mgmt1"}, l.Kube.Etcd().Running())
	out := l.OutInventory()
	// One member; the spare's and the management servers' slots are
	// listed too, for when one joins.
	require.Len(t, out.ControlPlane.Etcd.Endpoints, 4)
	require.True(t, apiAnswers(l))

	var ts testsuite.WorkflowTestSuite
	aenv := ts.NewTestActivityEnvironment()
	acts := &bmc.Activities{PollInterval: 100 * time.Millisecond}
	aenv.RegisterActivity(acts)
	_, err = aenv.ExecuteActivity(acts.PowerOff, bmc.PowerOffInput{Endpoint: bmcOf(t, l, out, "rack1-mgmt1"), SkipShutdown: true})
	require.NoError(t, err)
	require.Equal(t, "Off", l.Machine("rack1-mgmt1").BMC.State().Power)
	require.Equal(t, []string{"rack1-mgmt1"}, l.Kube.Etcd().Running(), "a detached member keeps running")
	require.True(t, apiAnswers(l))
	require.Zero(t, l.Events.Count(events.EtcdMemberStop, "rack1-mgmt1"))
}
