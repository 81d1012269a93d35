package kubeapi

import (
	"context"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rackroll/rackroll/internal/lab/events"
)

// eventually polls cond until it holds (the deadline only guards hangs).
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func apiAnswers(s *Server) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	_, err := s.Client().CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	return err == nil
}

func countOf(l *events.Log, kind, bmm string) int { return l.Count(kind, bmm) }

// Three members serve; one down keeps the API up, two down stop it, and
// they come back from their data. A reimaged member rejoins as a new
// member, the lab's join removing the stale one and saying so.
func TestEtcdClusterFollowsMachines(t *testing.T) {
	if testing.Short() {
		t.Skip("starts three etcd members and kube-apiserver")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	log := events.New(nil)
	began := time.Now()
	s, err := Start(ctx, Options{Events: log, EtcdMembers: []EtcdMember{
		{Name: "n1", BMM: "m1", Rack: "r1", Initial: true},
		{Name: "n2", BMM: "m2", Rack: "r1", Initial: true},
		{Name: "n3", BMM: "m3", Rack: "r1", Initial: true},
		{Name: "n4", BMM: "m4", Rack: "r1"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Stop() })
	t.Logf("three etcd members + kube-apiserver ready in %v", time.Since(began).Round(time.Millisecond))
	e := s.Etcd()
	if got := e.Running(); !slices.Equal(got, []string{"n1", "n2", "n3"}) {
		t.Fatalf("running members = %v, want n1 n2 n3 (n4 is a spare slot)", got)
	}
	// Every slot's client URL, the spare's too: the API must reach a
	// promoted spare's member once the initial ones have gone.
	if len(e.Endpoints()) != 4 || len(s.PIDs()) != 4 {
		t.Fatalf("endpoints %v, pids %v", e.Endpoints(), s.PIDs())
	}
	eventually(t, "a leader", func() bool { return e.Leader() != "" })
	for _, m := range []string{"m1", "m2", "m3"} {
		if countOf(log, events.EtcdMemberAdd, m) != 1 || countOf(log, events.EtcdMemberStart, m) != 1 {
			t.Fatalf("%s: want one add and one start event, have %v", m, log.Events())
		}
	}

	// One down: the API still answers.
	e.SetMachine("m1", false, false, true)
	eventually(t, "m1's member to stop", func() bool { return countOf(log, events.EtcdMemberStop, "m1") == 1 })
	if !apiAnswers(s) {
		t.Fatal("the API stopped answering with two of three members up")
	}
	// Two down: no quorum, no API.
	e.SetMachine("m2", false, false, true)
	eventually(t, "the API to stop answering", func() bool { return !apiAnswers(s) })
	eventually(t, "no leader", func() bool { return e.Leader() == "" })

	// Both boot again from their data.
	e.SetMachine("m1", true, false, true)
	e.SetMachine("m2", true, false, true)
	eventually(t, "the API to answer again", func() bool { return apiAnswers(s) })
	if n := countOf(log, events.EtcdMemberAdd, "m1"); n != 1 {
		t.Fatalf("a restart from data must not add a member (adds of m1: %d)", n)
	}

	// m3 reimaged without anyone removing its member: it rejoins as a new
	// member (learner, then voter) and the stale one is removed and logged.
	ids := memberIDs(t, e)
	e.SetMachine("m3", false, true, true)
	e.SetMachine("m3", true, false, true)
	eventually(t, "m3 promoted", func() bool { return countOf(log, events.EtcdMemberPromote, "m3") == 1 })
	for _, k := range []string{events.EtcdMemberStale, events.EtcdMemberRemove} {
		if countOf(log, k, "m3") != 1 {
			t.Fatalf("want one %s for m3, events: %v", k, log.Events())
		}
	}
	after := memberIDs(t, e)
	if len(after) != 3 || after["n3"] == ids["n3"] || after["n1"] != ids["n1"] {
		t.Fatalf("members before %v, after %v: want n3 with a new ID, the others unchanged", ids, after)
	}
	if !apiAnswers(s) {
		t.Fatal("API down after the rejoin")
	}

	// The spare boots without the KCP role: no member. Promoted while it
	// runs, it joins (kubeadm's control-plane join).
	e.SetMachine("m4", true, false, false)
	time.Sleep(500 * time.Millisecond)
	if slices.Contains(e.Running(), "n4") {
		t.Fatal("a machine booting without the KCP role started a member")
	}
	e.SetRole("m4", true)
	eventually(t, "n4 promoted", func() bool { return countOf(log, events.EtcdMemberPromote, "m4") == 1 })
	if countOf(log, events.EtcdMemberStale, "m4") != 0 {
		t.Fatal("a first join is not stale")
	}
	if got := memberIDs(t, e); len(got) != 4 {
		t.Fatalf("members after the spare joined: %v", got)
	}
}

func memberIDs(t *testing.T, e *EtcdCluster) map[string]uint64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp, err := e.Client().MemberList(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]uint64{}
	for _, m := range resp.Members {
		out[m.Name] = m.ID
	}
	return out
}
