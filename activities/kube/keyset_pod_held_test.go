package kube

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/keyset"
	"github.com/rackroll/rackroll/internal/lab/faults"
	"github.com/rackroll/rackroll/internal/version"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
)

// On the lab's simulated nodes: a node whose kubelet cannot pull the
// keyset pod's image fails the node's outcome within the bound, naming the
// image and the kubelet's reason; a node under maintenance — cordoned,
// with the cordon's taint and a site's NoSchedule taint — gets its keys.
func TestApplyNodeKeysOnANodeThatCannotPullOrIsTainted(t *testing.T) {
	s := newSite(t, 0)
	keysetNamespace(t, s.client)
	keys := twoUsers()
	s.acts.opts.NodeKeys = keysAt(keys)

	pull := NodeKeysInput{Cluster: "site-a", BMM: s.c0, Node: s.sim.NodeName(s.c0), Want: wantOf(t, keys), At: time.Now(), Timeout: 4 * time.Second}
	s.sim.SetFault(s.c0, faults.ImagePullFails, true)
	began := time.Now()
	_, err := s.env.ExecuteActivity(s.acts.ApplyNodeKeys, pull)
	if took := time.Since(began); took > 10*time.Second {
		t.Fatalf("a node that cannot pull took %v (bound 4s)", took)
	}
	if appType(err) != ErrKeysetPodNotRun {
		t.Fatalf("a node that cannot pull: %v", err)
	}
	for _, want := range []string{"node " + pull.Node + " did not run its keyset pod within 4s", "for image " + keyset.NodeImage(version.Version),
		`failed to pull and unpack image "` + keyset.NodeImage(version.Version) + `"`, "the node keeps the users it had"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if !strings.Contains(err.Error(), "ImagePullBackOff") && !strings.Contains(err.Error(), "ErrImagePull") {
		t.Errorf("error %q names no kubelet reason", err)
	}
	if u := s.sim.NodeUsers(pull.Node); len(u) != 0 {
		t.Fatalf("a node that cannot pull got users %+v", u)
	}

	tainted := pull
	tainted.BMM, tainted.Node, tainted.Timeout = s.c1, s.sim.NodeName(s.c1), 20*time.Second
	s.sim.SetFault(s.c1, faults.MaintenanceTaint, true)
	// Cordoned as kubectl cordon leaves it, with the taint the node
	// lifecycle controller adds (the lab runs none).
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		n, err := s.client.CoreV1().Nodes().Get(context.Background(), tainted.Node, metav1.GetOptions{})
		if err != nil {
			return err
		}
		n.Spec.Unschedulable = true
		n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule})
		_, err = s.client.CoreV1().Nodes().Update(context.Background(), n, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "node "+tainted.Node+" tainted for maintenance", func() (bool, string) {
		n, err := s.client.CoreV1().Nodes().Get(context.Background(), tainted.Node, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return len(n.Spec.Taints) >= 2 && n.Spec.Unschedulable, ""
	})
	var res NodeKeysResult
	s.run(t, &res, s.acts.ApplyNodeKeys, tainted)
	if res.Report != tainted.Want {
		t.Fatalf("a tainted node: %+v", res)
	}
	if u := s.sim.NodeUsers(tainted.Node); len(u) != 2 {
		t.Fatalf("a tainted node's users %+v", u)
	}
}
