package kube

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/keyset"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// The pod is what docs/keysets.md says, and nothing more: in its own
// namespace, labelled with the node, pinned by nodeName, no token, the
// host's /etc and /home mounted (not its /), the keys in its environment, the image and
// command named in one place.
func TestKeysetPodSpec(t *testing.T) {
	p := keysetPod("rack1-c1", `{"users":[]}`, 90*time.Second, KeysetImage{Ref: "registry.site.example/rackroll-keyset:1.4.0"})
	c := p.Spec.Containers[0]
	switch {
	case p.Namespace != keyset.NodeNamespace || p.Name != "keyset-rack1-c1" || p.Labels[keyset.NodePodLabel] != "rack1-c1" || len(p.Labels) != 1:
		t.Fatalf("meta %+v", p.ObjectMeta)
	case p.Spec.NodeName != "rack1-c1" || p.Spec.RestartPolicy != corev1.RestartPolicyNever || len(p.Spec.Tolerations) != 3:
		t.Fatalf("placement %+v", p.Spec)
	case p.Spec.AutomountServiceAccountToken == nil || *p.Spec.AutomountServiceAccountToken:
		t.Fatal("the pod gets a service account token")
	case *p.Spec.ActiveDeadlineSeconds != 90:
		t.Fatalf("active deadline %d", *p.Spec.ActiveDeadlineSeconds)
	case c.Image != "registry.site.example/rackroll-keyset:1.4.0" || strings.Join(c.Command, " ") != strings.Join(keyset.NodePodCommand, " "):
		t.Fatalf("image %s %v", c.Image, c.Command)
	case p.Spec.ImagePullSecrets != nil:
		t.Fatalf("a pull secret no one named: %v", p.Spec.ImagePullSecrets)
	case len(c.Env) != 1 || c.Env[0].Name != keyset.NodeKeysEnv || c.Env[0].Value != `{"users":[]}`:
		t.Fatalf("env %+v", c.Env)
	case len(p.Spec.Volumes) != 2 || len(c.VolumeMounts) != 2:
		t.Fatalf("mounts %+v %+v", p.Spec.Volumes, c.VolumeMounts)
	}
	// Only the host's /etc and /home, writable where the command looks
	// (its --root), never the host's /.
	for i, want := range []string{"/etc", "/home"} {
		v, m := p.Spec.Volumes[i], c.VolumeMounts[i]
		if v.HostPath == nil || v.HostPath.Path != want || m.Name != v.Name || m.MountPath != keyset.NodeHostRoot+want || m.ReadOnly {
			t.Fatalf("mount %d: %+v %+v, want hostPath %s at %s%s", i, v, m, want, keyset.NodeHostRoot, want)
		}
	}
	if ps := keysetPod("n", "{}", time.Minute, KeysetImage{Ref: "x", PullSecret: "site-registry"}).Spec.ImagePullSecrets; len(ps) != 1 || ps[0].Name != "site-registry" {
		t.Fatalf("the site's pull secret: %v", ps)
	}
	long := strings.Repeat("n", 250)
	if n := keysetPodName(long); len(n) > 253 || !strings.HasPrefix(n, "keyset-") || n == keysetPodName(long+"x") {
		t.Fatalf("a long node's pod name %q", n)
	}
}

// kubeletEnds answers every keyset pod created on cs as a kubelet would
// once it ran: phase, exit code and termination message.
func kubeletEnds(cs *fake.Clientset, phase corev1.PodPhase, code int32, msg string) {
	cs.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		p := a.(k8stesting.CreateAction).GetObject().(*corev1.Pod)
		p.UID = "uid-1"
		p.Status = corev1.PodStatus{Phase: phase, ContainerStatuses: []corev1.ContainerStatus{{Name: keysetContainer,
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: code, Message: msg}}}}}
		return false, nil, nil
	})
}

// What ApplyNodeKeys refuses or reports, each naming the node: bad input
// before any call, a set the ledger no longer has, a pod that failed, a
// report that is not the set, a missing namespace; the pod is deleted
// whatever came of it.
func TestApplyNodeKeysRefusals(t *testing.T) {
	keys := twoUsers()
	want := wantOf(t, keys)
	in := NodeKeysInput{Cluster: "site-a", BMM: "rack1-c1", Node: "rack1-c1", Want: want, At: time.Unix(1000, 0), Timeout: 5 * time.Second}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: keyset.NodeNamespace}}
	report := func(k keyset.NodeKeys) string {
		b, _ := json.Marshal(wantOf(t, k))
		return string(b)
	}
	for name, c := range map[string]struct {
		in      func(NodeKeysInput) NodeKeysInput
		src     NodeKeysSource
		kubelet func(*fake.Clientset)
		noNS    bool
		left    int // pods left behind
		typ     string
		says    []string
	}{
		"no node":    {in: func(i NodeKeysInput) NodeKeysInput { i.Node = ""; return i }, typ: ErrInvalidInput, says: []string{`node: required`, `"rack1-c1"`}},
		"no time":    {in: func(i NodeKeysInput) NodeKeysInput { i.At = time.Time{}; return i }, typ: ErrInvalidInput, says: []string{"at: required", "node rack1-c1"}},
		"no want":    {in: func(i NodeKeysInput) NodeKeysInput { i.Want = keyset.NodeReport{}; return i }, typ: ErrInvalidInput, says: []string{"want:"}},
		"no source":  {src: nil, typ: ErrConfig, says: []string{"no source of the BMM keysets' keys"}},
		"superseded": {src: keysAt(keyset.NodeKeys{Users: keys.Users[:1]}), typ: ErrKeysetSuperseded, says: []string{"node rack1-c1: the ledger's BMM keysets at", "superseded", "holds 2 rackroll users"}},
		"failed": {src: keysAt(keys), kubelet: func(cs *fake.Clientset) { kubeletEnds(cs, corev1.PodFailed, 3, "visudo -c: syntax error") },
			typ: ErrKeysetPodFailed, says: []string{"node rack1-c1: keyset pod failed (exit code 3", "visudo -c: syntax error", "keeps the users it had"}},
		"mismatch": {src: keysAt(keys), kubelet: func(cs *fake.Clientset) {
			kubeletEnds(cs, corev1.PodSucceeded, 0, report(keyset.NodeKeys{Users: keys.Users[:1]}))
		},
			typ: ErrKeysetNodeMismatch, says: []string{"node rack1-c1: the node holds 1 rackroll users", "want 2"}},
		"garbled": {src: keysAt(keys), kubelet: func(cs *fake.Clientset) { kubeletEnds(cs, corev1.PodSucceeded, 0, "done") },
			typ: ErrKeysetNodeMismatch, says: []string{`node rack1-c1: keyset pod answered "done", not a report`}},
		"no namespace": {src: keysAt(keys), noNS: true, typ: ErrConfig, says: []string{"node rack1-c1", "namespace rackroll-keysets is missing", "deploy/"}},
		"delete refused": {src: keysAt(keys), kubelet: func(cs *fake.Clientset) {
			kubeletEnds(cs, corev1.PodSucceeded, 0, report(keys))
			cs.PrependReactor("delete", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
				return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "keyset-rack1-c1", fmt.Errorf("RBAC: no delete"))
			})
		}, left: 1, typ: ErrForbidden, says: []string{"node rack1-c1: delete keyset pod rackroll-keysets/keyset-rack1-c1", "forbidden", "deploy/keysets.yaml", "grant it"}},
	} {
		t.Run(name, func(t *testing.T) {
			var objs []runtime.Object
			if !c.noNS {
				objs = append(objs, ns)
			}
			acts, cs := fastActs(objs...)
			if c.noNS {
				cs.PrependReactor("create", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
					return true, nil, apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, keyset.NodeNamespace)
				})
			}
			if c.kubelet != nil {
				c.kubelet(cs)
			}
			acts.opts.NodeKeys = c.src
			i := in
			if c.in != nil {
				i = c.in(in)
				acts.opts.NodeKeys = keysAt(keys)
			}
			_, err := acts.ApplyNodeKeys(bg, i)
			if appType(err) != c.typ {
				t.Fatalf("error %v (type %q), want type %s", err, appType(err), c.typ)
			}
			for _, s := range c.says {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q lacks %q", err, s)
				}
			}
			if l, _ := cs.CoreV1().Pods(keyset.NodeNamespace).List(bg, metav1.ListOptions{}); len(l.Items) != c.left {
				t.Errorf("%d keyset pods left", len(l.Items))
			}
		})
	}
}
