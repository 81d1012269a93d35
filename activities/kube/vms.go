package kube

import (
	"context"
	"encoding/json"
	"fmt"
	"k8s.io/kubectl/pkg/util/podutils"
	"sort"
	"time"

	"github.com/rackroll/rackroll/internal/model"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
)

// ShutdownInput names the node whose tenant VMs to shut down.
type ShutdownInput struct {
	Node string
	// Timeout bounds the wait for the VMs to stop (default
	// DefaultShutdownTimeout, 10 minutes); then the upgrade proceeds.
	Timeout time.Duration
}

// ShutdownResult lists VMs as namespace/name.
type ShutdownResult struct {
	Stopped     []string // VMs that were running and are now down
	WereRunning []string // VMs that were running: StartVMs restarts exactly these
	TimedOut    bool     // some of WereRunning had not stopped in time
}

// StartResult lists the VMs StartVMs restarted, as namespace/name.
type StartResult struct {
	Started []string
}

// ShutdownVMs asks every running tenant VM on the node to stop (vm-state
// Stopped) and marks it vm-restart=true, then waits until their pods
// report not Ready or Timeout passes. Stopped VMs are left alone, so after
// a retry WereRunning is still exactly the VMs that were running.
func (a *Activities) ShutdownVMs(ctx context.Context, in ShutdownInput) (ShutdownResult, error) {
	if in.Node == "" {
		return ShutdownResult{}, invalidInput("node name is empty")
	}
	if in.Timeout < 0 {
		return ShutdownResult{}, invalidInput("timeout %v is negative", in.Timeout)
	}
	timeout := in.Timeout
	if timeout == 0 {
		timeout = DefaultShutdownTimeout
	}
	cs, err := a.client(ctx)
	if err != nil {
		return ShutdownResult{}, err
	}
	vms, err := vmPods(ctx, cs, in.Node)
	if err != nil {
		return ShutdownResult{}, err
	}
	var res ShutdownResult
	for _, p := range vms {
		switch {
		case p.Annotations[model.AnnotationVMState] == model.VMRunning:
			err := annotate(ctx, cs, p, map[string]any{model.AnnotationVMState: model.VMStopped, model.AnnotationVMRestart: "true"})
			if err != nil {
				return res, fmt.Errorf("shut down VM %s/%s on %s: %w", p.Namespace, p.Name, in.Node, err)
			}
		case p.Annotations[model.AnnotationVMRestart] != "true":
			continue // stopped before we came: stays stopped
		}
		res.WereRunning = append(res.WereRunning, p.Namespace+"/"+p.Name)
	}
	if len(res.WereRunning) == 0 {
		return res, nil
	}

	deadline := time.NewTimer(withinDeadline(ctx, timeout))
	defer deadline.Stop()
	tick := time.NewTicker(a.opts.PollInterval)
	defer tick.Stop()
	for {
		down, err := vmsDown(ctx, cs, in.Node, res.WereRunning)
		if err == nil {
			res.Stopped = down
			if len(down) == len(res.WereRunning) {
				return res, nil
			}
		}
		heartbeat(ctx, res)
		select {
		case <-ctx.Done():
			return res, ctx.Err()
		case <-deadline.C:
			res.TimedOut = true
			return res, nil
		case <-tick.C:
		}
	}
}

// StartVMs restarts the VMs on node that ShutdownVMs stopped (marked
// vm-restart=true) and clears the mark; VMs that were stopped before stay
// stopped. It does not wait for them: the upgrade does not wait for
// tenant resources (docs/behaviour-upgrade.md#upgrade).
func (a *Activities) StartVMs(ctx context.Context, node string) (StartResult, error) {
	cs, err := a.nodeClient(ctx, node)
	if err != nil {
		return StartResult{}, err
	}
	vms, err := vmPods(ctx, cs, node)
	if err != nil {
		return StartResult{}, err
	}
	var res StartResult
	for _, p := range vms {
		if p.Annotations[model.AnnotationVMRestart] != "true" {
			continue
		}
		// A nil value removes the mark in a JSON merge patch.
		if err := annotate(ctx, cs, p, map[string]any{model.AnnotationVMState: model.VMRunning, model.AnnotationVMRestart: nil}); err != nil {
			return res, fmt.Errorf("start VM %s/%s on %s: %w", p.Namespace, p.Name, node, err)
		}
		res.Started = append(res.Started, p.Namespace+"/"+p.Name)
	}
	return res, nil
}

// vmPods lists the tenant VM pods bound to node, sorted by namespace/name.
func vmPods(ctx context.Context, cs kubernetes.Interface, node string) ([]corev1.Pod, error) {
	list, err := cs.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{
		LabelSelector: labels.SelectorFromSet(labels.Set{model.LabelWorkload: model.WorkloadVM}).String(),
		FieldSelector: fields.OneTermEqualSelector("spec.nodeName", node).String(),
	})
	if err != nil {
		return nil, fmt.Errorf("list VMs on node %s: %w", node, err)
	}
	var out []corev1.Pod
	for _, p := range list.Items {
		// Filter again: not every client (fakes) applies field selectors.
		if p.Spec.NodeName == node && isVM(&p) && p.DeletionTimestamp == nil {
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].Namespace+"/"+out[i].Name < out[j].Namespace+"/"+out[j].Name
	})
	return out, nil
}

// vmsDown returns those of want (namespace/name) whose pods are gone or
// not Ready.
func vmsDown(ctx context.Context, cs kubernetes.Interface, node string, want []string) ([]string, error) {
	vms, err := vmPods(ctx, cs, node)
	if err != nil {
		return nil, err
	}
	up := map[string]bool{}
	for _, p := range vms {
		up[p.Namespace+"/"+p.Name] = podutils.IsPodReady(&p)
	}
	var down []string
	for _, k := range want {
		if !up[k] {
			down = append(down, k)
		}
	}
	return down, nil
}

// annotate merge-patches p's annotations; a pod that vanished is fine.
func annotate(ctx context.Context, cs kubernetes.Interface, p corev1.Pod, ann map[string]any) error {
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": ann}})
	if err != nil {
		return err
	}
	_, err = cs.CoreV1().Pods(p.Namespace).Patch(ctx, p.Name, types.MergePatchType, patch, metav1.PatchOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}
