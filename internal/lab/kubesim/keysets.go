package kubesim

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/rackroll/rackroll/internal/keyset"
	"github.com/rackroll/rackroll/internal/lab/events"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The simulated node's OS users, as keyset pods leave them
// (keyset.NodePodLabel, docs/keysets.md): the kubelet "runs" a keyset pod
// on a Ready node by making the node's rackroll users exactly the ones the
// pod carries, and ends it Succeeded with keyset.NodeReport as its
// termination message (Failed, with the reason, when a key does not
// parse: the node keeps what it had). A pod on a node that is not Ready
// waits, as a real one does. A reinstall wipes the users: the OS is new
// (MachineState.Installs), so keys must be applied again.

// NodeUsers returns the rackroll users node holds, in name order.
func (s *Sim) NodeUsers(node string) []keyset.Fingerprinted {
	s.mu.Lock()
	defer s.mu.Unlock()
	if m, ok := s.byNode[node]; ok {
		return slices.Clone(m.users)
	}
	return nil
}

// NodeKeysGiven returns the keys the last keyset pod gave node (what a
// test reads back), nil when none since the last install.
func (s *Sim) NodeKeysGiven(node string) *keyset.NodeKeys {
	s.mu.Lock()
	defer s.mu.Unlock()
	if m, ok := s.byNode[node]; ok && m.given != nil {
		k := *m.given
		k.Users = slices.Clone(k.Users)
		return &k
	}
	return nil
}

// runKeysetPod plays a keyset pod that has not ended, once node is Ready.
func (s *Sim) runKeysetPod(ctx context.Context, p *corev1.Pod, nodeReady bool) error {
	if !nodeReady || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
		return nil
	}
	if held, err := s.holdKeysetPod(ctx, p); held || err != nil {
		return err
	}
	phase, code, msg := corev1.PodSucceeded, int32(0), ""
	given, users, err := keysOf(p)
	if err == nil {
		slices.SortFunc(users, func(a, b keyset.Fingerprinted) int { return strings.Compare(a.Name, b.Name) })
		rep, _ := json.Marshal(keyset.Report(users))
		msg = string(rep)
		s.mu.Lock()
		if m, ok := s.byNode[p.Spec.NodeName]; ok {
			m.users, m.given = users, &given
		}
		s.mu.Unlock()
	} else {
		phase, code, msg = corev1.PodFailed, 1, err.Error()
	}
	t := metav1.NewTime(s.now())
	np := p.DeepCopy()
	np.Status = corev1.PodStatus{Phase: phase, StartTime: &t}
	for _, c := range p.Spec.Containers {
		np.Status.ContainerStatuses = append(np.Status.ContainerStatuses, corev1.ContainerStatus{
			Name: c.Name, Image: c.Image, ImageID: c.Image,
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
				ExitCode: code, Message: msg, StartedAt: t, FinishedAt: t, Reason: string(phase)}},
		})
	}
	if _, err := s.client.CoreV1().Pods(p.Namespace).UpdateStatus(ctx, np, metav1.UpdateOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	s.emitFor(events.KeysetPod, p.Spec.NodeName, map[string]any{"phase": string(phase), "users": len(users)})
	return nil
}

// keysOf reads the keys a keyset pod carries and what the node will hold.
// Its spec is all the lab goes by, as a kubelet has nothing else: a pod
// without the host's directories mounted where the pod's command looks
// for them (keyset.NodeHostPaths under keyset.NodeHostRoot) fails as the
// node program would, reaching no user; so does one that mounts the
// host's /, which the keyset pod never needs.
func keysOf(p *corev1.Pod) (keyset.NodeKeys, []keyset.Fingerprinted, error) {
	if err := hostPathsMounted(p); err != nil {
		return keyset.NodeKeys{}, nil, err
	}
	for _, c := range p.Spec.Containers {
		for _, e := range c.Env {
			if e.Name != keyset.NodeKeysEnv {
				continue
			}
			var k keyset.NodeKeys
			if err := json.Unmarshal([]byte(e.Value), &k); err != nil {
				return k, nil, fmt.Errorf("%s is not NodeKeys JSON: %v", keyset.NodeKeysEnv, err)
			}
			users, err := k.Fingerprints()
			return k, users, err
		}
	}
	return keyset.NodeKeys{}, nil, fmt.Errorf("no %s in the pod's environment", keyset.NodeKeysEnv)
}

// hostPathsMounted says why p's first container does not have each of
// keyset.NodeHostPaths from the host, writable, at keyset.NodeHostRoot
// plus its path, and nothing of the host at /.
func hostPathsMounted(p *corev1.Pod) error {
	for _, v := range p.Spec.Volumes {
		if v.HostPath != nil && v.HostPath.Path == "/" {
			return fmt.Errorf("volume %s mounts the host's /: the keyset pod mounts only %s", v.Name, strings.Join(keyset.NodeHostPaths, ", "))
		}
	}
	if len(p.Spec.Containers) == 0 {
		return fmt.Errorf("no container")
	}
	for _, path := range keyset.NodeHostPaths {
		if !slices.ContainsFunc(p.Spec.Containers[0].VolumeMounts, func(m corev1.VolumeMount) bool {
			return m.MountPath == keyset.NodeHostRoot+path && !m.ReadOnly && slices.ContainsFunc(p.Spec.Volumes, func(v corev1.Volume) bool {
				return v.Name == m.Name && v.HostPath != nil && v.HostPath.Path == path
			})
		}) {
			return fmt.Errorf("%s%s is not the host's %s: mount hostPath %s there, writable", keyset.NodeHostRoot, path, path, path)
		}
	}
	return nil
}

// wipeUsersLocked forgets the node's users after a reinstall.
func (m *machine) wipeUsersLocked(installs int) {
	if installs > m.installs {
		m.installs, m.users, m.given = installs, nil, nil
	}
}
