package kubesim

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/keyset"
	"github.com/rackroll/rackroll/internal/keyset/keysettest"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// keysetPod makes a keyset pod as the activity does; host changes its
// spec first when not nil.
func keysetPod(t *testing.T, s *testSite, name, node string, keys keyset.NodeKeys, host func(*corev1.Pod)) {
	t.Helper()
	env, err := json.Marshal(keys)
	if err != nil {
		t.Fatal(err)
	}
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: s.ns, Labels: map[string]string{keyset.NodePodLabel: node}},
		Spec: corev1.PodSpec{NodeName: node, RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{
			Name: "apply", Image: "rackroll-keyset:lab", Env: []corev1.EnvVar{{Name: keyset.NodeKeysEnv, Value: string(env)}},
			VolumeMounts: []corev1.VolumeMount{{Name: "etc", MountPath: keyset.NodeHostRoot + "/etc"}, {Name: "home", MountPath: keyset.NodeHostRoot + "/home"}}}},
			Volumes: []corev1.Volume{{Name: "etc", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/etc"}}},
				{Name: "home", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/home"}}}}},
	}
	if host != nil {
		host(p)
	}
	if _, err := s.client.CoreV1().Pods(s.ns).Create(context.Background(), p, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// podEnd waits for a pod to end and returns its phase and message.
func podEnd(t *testing.T, s *testSite, name string) (corev1.PodPhase, string) {
	t.Helper()
	var p *corev1.Pod
	eventually(t, "pod "+name+" ends", func() (bool, string) {
		var err error
		p, err = s.client.CoreV1().Pods(s.ns).Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed, string(p.Status.Phase)
	})
	return p.Status.Phase, p.Status.ContainerStatuses[0].State.Terminated.Message
}

// The simulated node plays a keyset pod: on a Ready node it holds exactly
// the users given and answers the report rackroll checks; a pod with a bad
// key fails and changes nothing; a pod on a node that is down waits; a
// reinstall wipes the users.
func TestKeysetPodOnTheSimulatedNode(t *testing.T) {
	s := startSite(t, Options{}, "compute", "compute")
	s.ns = s.prefix + "-keysets"
	if _, err := s.client.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: s.ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	bmm := s.Machines()[0].Name
	node := s.NodeName(bmm)
	want := keyset.NodeKeys{Users: []keyset.NodeUser{
		{Name: "alice", Keyset: "oncall", Privilege: keyset.Superuser, Key: keysettest.Line(1, "alice")},
		{Name: "bob", Keyset: "oncall", Privilege: keyset.Superuser, Key: keysettest.Line(2, "bob")},
	}}
	keysetPod(t, s, "keys-1", node, want, nil)
	phase, msg := podEnd(t, s, "keys-1")
	if phase != corev1.PodSucceeded {
		t.Fatalf("pod %s: %s", phase, msg)
	}
	var rep keyset.NodeReport
	if err := json.Unmarshal([]byte(msg), &rep); err != nil {
		t.Fatalf("termination message %q: %v", msg, err)
	}
	if err := keyset.CheckReport(want, rep); err != nil {
		t.Fatal(err)
	}
	users := s.NodeUsers(node)
	if len(users) != 2 || users[0].Name != "alice" || users[1].Privilege != keyset.Superuser {
		t.Fatalf("node users %+v", users)
	}
	if g := s.NodeKeysGiven(node); g == nil || g.Users[1].Key != want.Users[1].Key {
		t.Fatalf("keys given %+v", g)
	}
	if other := s.NodeUsers(s.NodeName(s.Machines()[1].Name)); len(other) != 0 {
		t.Fatalf("the other node got users: %+v", other)
	}

	bad := keyset.NodeKeys{Users: []keyset.NodeUser{{Name: "eve", Keyset: "x", Privilege: keyset.Standard, Key: "ssh-ed25519 AAAA"}}}
	keysetPod(t, s, "keys-2", node, bad, nil)
	if phase, msg := podEnd(t, s, "keys-2"); phase != corev1.PodFailed || msg == "" {
		t.Fatalf("a bad key: %s %q", phase, msg)
	}
	if len(s.NodeUsers(node)) != 2 {
		t.Fatal("a failed pod changed the node's users")
	}
	// Without the host's /etc mounted, the node program reaches nothing;
	// with the host's / mounted, the lab refuses what rackroll never needs.
	keysetPod(t, s, "keys-2b", node, keyset.NodeKeys{Users: want.Users[1:]}, func(p *corev1.Pod) {
		p.Spec.Volumes[0].VolumeSource = corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}
	})
	if phase, msg := podEnd(t, s, "keys-2b"); phase != corev1.PodFailed || !strings.Contains(msg, "/host/etc is not the host's /etc") {
		t.Fatalf("no host /etc: %s %q", phase, msg)
	}
	keysetPod(t, s, "keys-2c", node, keyset.NodeKeys{Users: want.Users[1:]}, func(p *corev1.Pod) {
		p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: "all", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/"}}})
	})
	if phase, msg := podEnd(t, s, "keys-2c"); phase != corev1.PodFailed || !strings.Contains(msg, "volume all mounts the host's /") {
		t.Fatalf("the host's / mounted: %s %q", phase, msg)
	}
	if len(s.NodeUsers(node)) != 2 {
		t.Fatal("a pod without the host's /etc, or with its /, changed the node's users")
	}

	// Down: the pod waits; back up, it runs (one user removed).
	s.SetMachineState(bmm, MachineState{Powered: false})
	eventually(t, "node NotReady", func() (bool, string) {
		c := nodeCondition(s.node(t, node), corev1.NodeReady)
		return c != nil && c.Status != corev1.ConditionTrue, string(c.Status)
	})
	keysetPod(t, s, "keys-3", node, keyset.NodeKeys{Users: want.Users[1:]}, nil)
	time.Sleep(300 * time.Millisecond) // six kubelet ticks
	if p, _ := s.client.CoreV1().Pods(s.ns).Get(context.Background(), "keys-3", metav1.GetOptions{}); p.Status.Phase == corev1.PodSucceeded {
		t.Fatal("a keyset pod ran on a node that is down")
	}
	s.SetMachineState(bmm, MachineState{Powered: true, OSRunning: true})
	if phase, _ := podEnd(t, s, "keys-3"); phase != corev1.PodSucceeded {
		t.Fatal(phase)
	}
	if u := s.NodeUsers(node); len(u) != 1 || u[0].Name != "bob" {
		t.Fatalf("after the update %+v", u)
	}

	// A reinstall: a new OS, no users.
	s.SetMachineState(bmm, MachineState{Powered: true, OSRunning: false, Installs: 1})
	s.SetMachineState(bmm, MachineState{Powered: true, OSRunning: true, Installs: 1})
	if u, g := s.NodeUsers(node), s.NodeKeysGiven(node); len(u) != 0 || g != nil {
		t.Fatalf("after a reinstall %+v %+v", u, g)
	}
}
