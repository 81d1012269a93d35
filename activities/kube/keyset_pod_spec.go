package kube

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"

	"github.com/rackroll/rackroll/internal/keyset"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/utils/ptr"
)

// keysetContainer names the keyset pod's one container, whose
// termination message is the node's report.
const keysetContainer = "apply"

// keysetPodName is the one name a node's keyset pod has: a second pod for
// the node cannot be created while one exists (the API refuses the name),
// so two attempts, or two runs, never put two on a node at once. A node
// name too long to prefix is replaced by its hash.
func keysetPodName(node string) string {
	const prefix = "keyset-"
	if len(prefix)+len(node) <= 253 {
		return prefix + node
	}
	h := sha256.Sum256([]byte(node))
	return prefix + hex.EncodeToString(h[:16])
}

// keysetPod is the pod that makes node's rackroll users those of keys
// (docs/keysets-nodes.md#the-keyset-pod): pinned to the node by nodeName (no
// scheduler, so it runs on a cordoned node too; it tolerates the taints of
// a node under maintenance, keyset_pod_tolerations.go), the host's /etc
// and /home mounted and nothing else of it (keyset.NodeHostPaths),
// privileged (on a host enforcing SELinux, a container writes the host's
// /etc only so),
// no service account token (it calls no API), not restarted (a failure is
// the answer), and killed by its kubelet after limit. Its image is img's,
// pulled with img's Secret when there is one.
func keysetPod(node, keys string, limit time.Duration, img KeysetImage) *corev1.Pod {
	secs := max(int64(limit/time.Second), 1)
	volumes, mounts := hostVolumes()
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: keysetPodName(node), Namespace: keyset.NodeNamespace,
			Labels: map[string]string{keyset.NodePodLabel: keyset.NodePodLabelValue(node)}},
		Spec: corev1.PodSpec{
			NodeName:                      node,
			RestartPolicy:                 corev1.RestartPolicyNever,
			AutomountServiceAccountToken:  ptr.To(false),
			ActiveDeadlineSeconds:         &secs,
			TerminationGracePeriodSeconds: ptr.To(int64(10)),
			Tolerations:                   keysetTolerations,
			Containers: []corev1.Container{{
				Name: keysetContainer, Image: img.Ref, Command: keyset.NodePodCommand,
				Env:                      []corev1.EnvVar{{Name: keyset.NodeKeysEnv, Value: keys}},
				SecurityContext:          &corev1.SecurityContext{Privileged: ptr.To(true), RunAsUser: ptr.To(int64(0))},
				VolumeMounts:             mounts,
				TerminationMessagePolicy: corev1.TerminationMessageReadFile,
			}},
			Volumes: volumes,
		},
	}
	if img.PullSecret != "" {
		p.Spec.ImagePullSecrets = []corev1.LocalObjectReference{{Name: img.PullSecret}}
	}
	return p
}

// hostVolumes are keyset.NodeHostPaths as the pod's volumes and its
// container's mounts, host-etc at /host/etc and so on. /etc must be a
// directory already; /home is made when a node has none.
func hostVolumes() ([]corev1.Volume, []corev1.VolumeMount) {
	var vols []corev1.Volume
	var mounts []corev1.VolumeMount
	for _, path := range keyset.NodeHostPaths {
		name := "host" + strings.ReplaceAll(path, "/", "-")
		typ := corev1.HostPathDirectoryOrCreate
		if path == "/etc" {
			typ = corev1.HostPathDirectory
		}
		vols = append(vols, corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{
			HostPath: &corev1.HostPathVolumeSource{Path: path, Type: ptr.To(typ)}}})
		mounts = append(mounts, corev1.VolumeMount{Name: name, MountPath: keyset.NodeHostRoot + path})
	}
	return vols, mounts
}

// keysOfPod is the keys a keyset pod carries ("" when none).
func keysOfPod(p *corev1.Pod) string {
	for _, c := range p.Spec.Containers {
		for _, e := range c.Env {
			if e.Name == keyset.NodeKeysEnv {
				return e.Value
			}
		}
	}
	return ""
}

// ended says whether p has ended, and its phase.
func ended(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
}

// started says whether a container of p has started: until then nothing
// of it ran on the node.
func started(p *corev1.Pod) bool {
	for _, c := range p.Status.ContainerStatuses {
		if c.State.Running != nil || c.State.Terminated != nil {
			return true
		}
	}
	return false
}

// terminated is the keyset container's end, nil before it.
func terminated(p *corev1.Pod) *corev1.ContainerStateTerminated {
	for _, c := range p.Status.ContainerStatuses {
		if c.Name == keysetContainer && c.State.Terminated != nil {
			return c.State.Terminated
		}
	}
	return nil
}

// deletePod deletes p, this one (its UID): at once when nothing of it
// runs on the node any more or ever did (ended, or never started: a pod
// on a node that is down would otherwise stay Terminating until its
// kubelet comes back), with its grace period when it runs, so that its
// kubelet stops it before the name is free for the next.
func deletePod(ctx context.Context, pods typedcorev1.PodInterface, p *corev1.Pod) error {
	opts := metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &p.UID}}
	if ended(p) || !started(p) {
		opts.GracePeriodSeconds = ptr.To(int64(0))
	}
	return pods.Delete(ctx, p.Name, opts)
}
