package kubesim

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/rackroll/rackroll/internal/keyset"
	"github.com/rackroll/rackroll/internal/keyset/keysettest"
	"github.com/rackroll/rackroll/internal/lab/faults"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func waitingOf(p *corev1.Pod) (string, string) {
	if len(p.Status.ContainerStatuses) == 0 || p.Status.ContainerStatuses[0].State.Waiting == nil {
		return "", ""
	}
	w := p.Status.ContainerStatuses[0].State.Waiting
	return w.Reason, w.Message
}

// A node whose kubelet cannot pull the image says so in the pod's status
// as a kubelet does, ErrImagePull then ImagePullBackOff, naming the image;
// once it can, the pod runs. A node tainted for maintenance (NoSchedule)
// still runs a pod that names it; a NoExecute taint the pod does not
// tolerate gets it refused at admission.
func TestKeysetPodHeldOnTheSimulatedNode(t *testing.T) {
	s := startSite(t, Options{}, "compute")
	s.ns = s.prefix + "-keysets"
	if _, err := s.client.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: s.ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	bmm := s.Machines()[0].Name
	node := s.NodeName(bmm)
	keys := keyset.NodeKeys{Users: []keyset.NodeUser{{Name: "alice", Keyset: "oncall", Privilege: keyset.Standard, Key: keysettest.Line(1, "alice")}}}
	get := func(name string) *corev1.Pod {
		p, err := s.client.CoreV1().Pods(s.ns).Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}

	s.SetFault(bmm, faults.ImagePullFails, true)
	keysetPod(t, s, "pull-1", node, keys, nil)
	seen := map[string]string{}
	eventually(t, "ErrImagePull then ImagePullBackOff", func() (bool, string) {
		r, m := waitingOf(get("pull-1"))
		if r != "" {
			seen[r] = m
		}
		return seen["ErrImagePull"] != "" && seen["ImagePullBackOff"] != "", r
	})
	if m := seen["ErrImagePull"]; !strings.Contains(m, `failed to pull and unpack image "rackroll-keyset:lab"`) {
		t.Errorf("ErrImagePull message %q", m)
	}
	if m := seen["ImagePullBackOff"]; m != `Back-off pulling image "rackroll-keyset:lab"` {
		t.Errorf("ImagePullBackOff message %q", m)
	}
	if p := get("pull-1"); p.Status.Phase != corev1.PodPending || len(s.NodeUsers(node)) != 0 {
		t.Fatalf("phase %s, users %v", p.Status.Phase, s.NodeUsers(node))
	}
	s.SetFault(bmm, faults.ImagePullFails, false)
	if phase, msg := podEnd(t, s, "pull-1"); phase != corev1.PodSucceeded {
		t.Fatalf("once the image pulls: %s %q", phase, msg)
	}

	s.SetFault(bmm, faults.MaintenanceTaint, true)
	eventually(t, "node tainted", func() (bool, string) {
		return slices.ContainsFunc(s.node(t, node).Spec.Taints, func(x corev1.Taint) bool { return x.Key == MaintenanceTaint.Key }), ""
	})
	keysetPod(t, s, "taint-1", node, keys, nil) // no toleration: the taint is the scheduler's
	if phase, msg := podEnd(t, s, "taint-1"); phase != corev1.PodSucceeded {
		t.Fatalf("on a node tainted for maintenance: %s %q", phase, msg)
	}

	n := s.node(t, node)
	n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: "example.com/quarantine", Effect: corev1.TaintEffectNoExecute})
	if _, err := s.client.CoreV1().Nodes().Update(context.Background(), n, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	keysetPod(t, s, "taint-2", node, keys, nil)
	eventually(t, "refused", func() (bool, string) {
		p := get("taint-2")
		return p.Status.Phase == corev1.PodFailed, p.Status.Reason + " " + p.Status.Message
	})
	if p := get("taint-2"); p.Status.Reason != "TaintToleration" || !strings.HasPrefix(p.Status.Message, "Pod was rejected: Predicate TaintToleration failed") {
		t.Fatalf("refusal %q %q", p.Status.Reason, p.Status.Message)
	}
	s.SetFault(bmm, faults.MaintenanceTaint, false)
	eventually(t, "maintenance taint gone", func() (bool, string) {
		return !slices.ContainsFunc(s.node(t, node).Spec.Taints, func(x corev1.Taint) bool { return x.Key == MaintenanceTaint.Key }), ""
	})
}
