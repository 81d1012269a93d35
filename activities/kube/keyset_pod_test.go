package kube

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/keyset"
	"github.com/rackroll/rackroll/internal/keyset/keysettest"
	"github.com/rackroll/rackroll/internal/lab/kubesim"
	"go.temporal.io/sdk/temporal"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// keysAt is a NodeKeysSource answering keys, whatever the time.
type keysAt keyset.NodeKeys

func (k keysAt) NodeKeys(context.Context, string, time.Time) (keyset.NodeKeys, error) {
	return keyset.NodeKeys(k), nil
}

func twoUsers() keyset.NodeKeys {
	return keyset.NodeKeys{Users: []keyset.NodeUser{
		{Name: "alice", Keyset: "oncall", Privilege: keyset.Superuser, Key: keysettest.Line(1, "test")},
		{Name: "bob", Keyset: "oncall", Privilege: keyset.Superuser, Key: keysettest.Line(2, "test")},
	}}
}

func wantOf(t *testing.T, k keyset.NodeKeys) keyset.NodeReport {
	t.Helper()
	users, err := k.Fingerprints()
	if err != nil {
		t.Fatal(err)
	}
	return keyset.Report(users)
}

// keysetNamespace makes keyset.NodeNamespace, as deploy/ does (the
// package's tests share one apiserver).
func keysetNamespace(t *testing.T, cs kubernetes.Interface) {
	t.Helper()
	_, err := cs.CoreV1().Namespaces().Create(bg, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: keyset.NodeNamespace}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
}

func appType(err error) string {
	var app *temporal.ApplicationError
	if errors.As(err, &app) {
		return app.Type()
	}
	return ""
}

// On the lab's simulated nodes: the node holds the set and the pod is
// gone; a pod an earlier attempt left is reused (same keys) or replaced
// (other keys), never two; a node that is down ends within the bound,
// saying it never ran the pod and why, and its pod is deleted too.
func TestApplyNodeKeysOnTheSimulatedNodes(t *testing.T) {
	s := newSite(t, 0)
	keysetNamespace(t, s.client)
	keys := twoUsers()
	s.acts.opts.NodeKeys = keysAt(keys)
	in := NodeKeysInput{Cluster: "site-a", BMM: s.c0, Node: s.sim.NodeName(s.c0), Want: wantOf(t, keys), At: time.Now(), Timeout: 20 * time.Second}
	pods := s.client.CoreV1().Pods(keyset.NodeNamespace)
	gone := func(node string) {
		t.Helper()
		if _, err := pods.Get(bg, keysetPodName(node), metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Fatalf("the keyset pod of %s is still there: %v", node, err)
		}
	}

	var res NodeKeysResult
	s.run(t, &res, s.acts.ApplyNodeKeys, in)
	if res.Report != in.Want || res.Reused || res.Replaced || res.Pod != "keyset-"+in.Node {
		t.Fatalf("result %+v, want report %+v", res, in.Want)
	}
	if u := s.sim.NodeUsers(in.Node); len(u) != 2 || u[0].Name != "alice" || u[1].Name != "bob" {
		t.Fatalf("node users %+v", u)
	}
	if other := s.sim.NodeUsers(s.sim.NodeName(s.c1)); len(other) != 0 {
		t.Fatalf("the other node got users %+v", other)
	}
	gone(in.Node)

	// A leftover with other keys (bob only): deleted, then the set applied.
	stale := keyset.NodeKeys{Users: keys.Users[1:]}
	env, _ := json.Marshal(stale)
	if _, err := pods.Create(bg, keysetPod(in.Node, string(env), time.Minute, KeysetImage{Ref: "rackroll-keyset:lab"}), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	s.run(t, &res, s.acts.ApplyNodeKeys, in)
	if !res.Replaced || res.Report != in.Want {
		t.Fatalf("after a stale leftover: %+v", res)
	}
	gone(in.Node)
	// A leftover with the same keys: reused.
	env, _ = json.Marshal(keys)
	if _, err := pods.Create(bg, keysetPod(in.Node, string(env), time.Minute, KeysetImage{Ref: "rackroll-keyset:lab"}), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	res = NodeKeysResult{}
	s.run(t, &res, s.acts.ApplyNodeKeys, in)
	if !res.Reused || res.Replaced || res.Report != in.Want {
		t.Fatalf("after a leftover with the same keys: %+v", res)
	}
	gone(in.Node)

	// Down: the pod stays Pending; the activity ends within its bound.
	s.sim.SetMachineState(s.c1, kubesim.MachineState{Powered: false})
	down := in
	down.BMM, down.Node, down.Timeout = s.c1, s.sim.NodeName(s.c1), 3*time.Second
	eventually(t, "node "+down.Node+" NotReady", func() (bool, string) {
		st := s.readNode(t, down.Node)
		return !st.IsReady(), st.String()
	})
	began := time.Now()
	_, err := s.env.ExecuteActivity(s.acts.ApplyNodeKeys, down)
	if took := time.Since(began); took > 10*time.Second {
		t.Fatalf("a node that is down took %v (bound 3s)", took)
	}
	if appType(err) != ErrKeysetPodNotRun {
		t.Fatalf("a node that is down: %v", err)
	}
	for _, want := range []string{"node " + down.Node + " did not run its keyset pod within 3s", "it never started", "Ready=", "the node keeps the users it had"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	gone(down.Node)
	if u := s.sim.NodeUsers(down.Node); len(u) != 0 {
		t.Fatalf("a node that is down got users %+v", u)
	}
}
