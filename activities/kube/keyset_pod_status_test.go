package kube

import (
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/keyset"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

const (
	img     = "registry.example/rackroll/keyset:v1"
	pullErr = `rpc error: code = NotFound desc = failed to pull and unpack image "registry.example/rackroll/keyset:v1": not found`
)

func waiting(reason, msg string) corev1.PodStatus {
	return corev1.PodStatus{Phase: corev1.PodPending, ContainerStatuses: []corev1.ContainerStatus{{Name: keysetContainer, Image: img,
		State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: msg}}}}}
}

// The status as the kubelet and the scheduler write it, read into why the
// pod waits and whether waiting can change it.
func TestHoldOf(t *testing.T) {
	unsched := corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse,
		Reason: "Unschedulable", Message: "0/1 nodes are available: 1 node(s) had untolerated taint {example.com/maint: }."}}}
	for name, c := range map[string]struct {
		st    corev1.PodStatus
		prev  podHold
		final bool
		says  string
	}{
		"creating":    {st: waiting("ContainerCreating", ""), says: ""},
		"pull":        {st: waiting("ErrImagePull", pullErr), says: "ErrImagePull for image " + img + ": " + pullErr},
		"backoff":     {st: waiting("ImagePullBackOff", `Back-off pulling image "`+img+`"`), prev: podHold{PullError: pullErr}, says: `ImagePullBackOff for image ` + img + `: Back-off pulling image "` + img + `" (last pull: ` + pullErr + ")"},
		"invalid":     {st: waiting("InvalidImageName", `Failed to apply default image tag "Bad Name": couldn't parse image name`), final: true, says: "InvalidImageName for image " + img},
		"never":       {st: waiting("ErrImageNeverPull", "Container image is not present with pull policy of Never"), final: true, says: "ErrImageNeverPull"},
		"config":      {st: waiting("CreateContainerConfigError", `secret "x" not found`), says: `CreateContainerConfigError: secret "x" not found`},
		"unscheduled": {st: unsched, says: "Unschedulable: 0/1 nodes are available: 1 node(s) had untolerated taint {example.com/maint: }."},
		"nothing":     {st: corev1.PodStatus{Phase: corev1.PodPending}, says: ""},
	} {
		t.Run(name, func(t *testing.T) {
			h := holdOf(&corev1.Pod{Status: c.st}, c.prev)
			if got := h.String(); h.Final != c.final || !strings.HasPrefix(got, c.says) || (c.says == "") != (got == "") {
				t.Fatalf("hold %+v says %q, want it to start with %q (final %v)", h, got, c.says, c.final)
			}
		})
	}
	if h := holdOf(&corev1.Pod{Status: waiting("ErrImagePull", pullErr)}, podHold{}); h.PullError != pullErr {
		t.Fatalf("the pull's error is not kept: %+v", h)
	}
}

// The pod tolerates a node under maintenance, and only that; its label
// is a label for any node name.
func TestKeysetPodTolerationsAndLabel(t *testing.T) {
	p := keysetPod("rack1-c1", "{}", time.Minute, KeysetImage{Ref: "rackroll-keyset:lab"})
	maint := []corev1.Taint{
		{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule},
		{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoExecute},
		{Key: corev1.TaintNodeUnreachable, Effect: corev1.TaintEffectNoExecute},
	}
	for _, tn := range maint {
		if !tolerated(tn, p.Spec.Tolerations) {
			t.Errorf("%s:%s not tolerated", tn.Key, tn.Effect)
		}
	}
	site := corev1.Taint{Key: "example.com/quarantine", Value: "yes", Effect: corev1.TaintEffectNoExecute}
	if got := untolerated(append(maint, site, corev1.Taint{Key: "example.com/x", Effect: corev1.TaintEffectNoSchedule}), p.Spec.Tolerations); got != "example.com/quarantine=yes:NoExecute" {
		t.Errorf("untolerated %q", got)
	}
	long := keysetPod(strings.Repeat("rack1-compute-", 17)+"c1", "{}", time.Minute, KeysetImage{Ref: "rackroll-keyset:lab"})
	if errs := validation.IsValidLabelValue(long.Labels[keyset.NodePodLabel]); len(errs) > 0 {
		t.Errorf("label of a long node: %v", errs)
	}
}

// Each kubelet reason in the node's outcome: one no retry changes fails at
// once; one the kubelet retries is waited for to the bound, then named
// with the image; a refusal at admission names the taint.
func TestApplyNodeKeysKubeletReasons(t *testing.T) {
	keys := twoUsers()
	in := NodeKeysInput{Cluster: "site-a", BMM: "rack1-c1", Node: "rack1-c1", Want: wantOf(t, keys), At: time.Unix(1000, 0), Timeout: time.Second}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: keyset.NodeNamespace}}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "rack1-c1"}, Spec: corev1.NodeSpec{Taints: []corev1.Taint{
		{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule},
		{Key: "example.com/quarantine", Value: "yes", Effect: corev1.TaintEffectNoExecute}}}}
	rejectedSt := corev1.PodStatus{Phase: corev1.PodFailed, Reason: "TaintToleration",
		Message: "Pod was rejected: Predicate TaintToleration failed: node(s) had taints that the pod didn't tolerate"}
	for name, c := range map[string]struct {
		first, then corev1.PodStatus
		typ         string
		quick       bool
		says        []string
	}{
		"invalid name": {first: waiting("InvalidImageName", "Failed to apply default image tag"), quick: true, typ: ErrKeysetPodFailed,
			says: []string{"node rack1-c1: the kubelet cannot start the keyset pod: InvalidImageName for image " + img, "keeps the users it had"}},
		"pull fails": {first: waiting("ErrImagePull", pullErr), then: waiting("ImagePullBackOff", `Back-off pulling image "`+img+`"`), typ: ErrKeysetPodNotRun,
			says: []string{"node rack1-c1 did not run its keyset pod within 1s (it never started: ImagePullBackOff for image " + img, "(last pull: " + pullErr + ")"}},
		"config": {first: waiting("CreateContainerConfigError", "container has runAsNonRoot and image will run as root"), typ: ErrKeysetPodNotRun,
			says: []string{"CreateContainerConfigError: container has runAsNonRoot"}},
		"taint": {first: rejectedSt, quick: true, typ: ErrKeysetPodFailed,
			says: []string{"the kubelet refused the keyset pod (TaintToleration: Pod was rejected", "the node carries example.com/quarantine=yes:NoExecute, which a keyset pod does not tolerate"}},
	} {
		t.Run(name, func(t *testing.T) {
			acts, cs := fastActs(ns, node)
			acts.opts.NodeKeys = keysAt(keys)
			kubeletSays(cs, c.first, c.then)
			began := time.Now()
			_, err := acts.ApplyNodeKeys(bg, in)
			took := time.Since(began)
			if appType(err) != c.typ {
				t.Fatalf("error %v (type %q), want %s", err, appType(err), c.typ)
			}
			for _, s := range c.says {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q lacks %q", err, s)
				}
			}
			if c.quick && took > 500*time.Millisecond || took > 3*time.Second {
				t.Errorf("took %v (bound 1s)", took)
			}
			if l, _ := cs.CoreV1().Pods(keyset.NodeNamespace).List(bg, metav1.ListOptions{}); len(l.Items) != 0 {
				t.Errorf("%d keyset pods left", len(l.Items))
			}
		})
	}
}

// kubeletSays gives every keyset pod created on cs the status first, and
// then (when set) from the second read on, as a kubelet posts them.
func kubeletSays(cs *fake.Clientset, first, then corev1.PodStatus) {
	cs.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		p := a.(k8stesting.CreateAction).GetObject().(*corev1.Pod)
		p.UID, p.Status = "uid-1", first
		return false, nil, nil
	})
	reads := 0
	cs.PrependReactor("get", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if reads++; reads < 3 || then.Phase == "" {
			return false, nil, nil
		}
		obj, err := cs.Tracker().Get(corev1.SchemeGroupVersion.WithResource("pods"), a.GetNamespace(), a.(k8stesting.GetAction).GetName())
		if err != nil {
			return false, nil, nil
		}
		p := obj.(*corev1.Pod).DeepCopy()
		p.Status = then
		return true, p, nil
	})
}
