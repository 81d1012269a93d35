package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/rackroll/rackroll/activities/kube"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/kubernetes"
)

// --scale-down: once the previous build drained, its Kubernetes Deployment
// (deploy/versioned's rackroll-worker-<build>) goes to 0 replicas. It is
// found and checked before the deployment's routing changes.

// buildLabel is the pod label deploy/versioned gives each build's workers.
const buildLabel = "rackroll.io/build"

type scaleTarget struct{ Namespace, Name string }

func (t scaleTarget) String() string { return t.Namespace + "/" + t.Name }

func parseScaleDown(s string) (scaleTarget, error) {
	ns, name, ok := strings.Cut(s, "/")
	bad := func(why string) (scaleTarget, error) {
		return scaleTarget{}, fmt.Errorf("--scale-down %q: must be NAMESPACE/DEPLOYMENT, e.g. rackroll/rackroll-worker-a: %s", s, why)
	}
	switch {
	case !ok || ns == "" || name == "":
		return bad("one '/' between two names")
	case len(validation.IsDNS1123Label(ns)) > 0:
		return bad("namespace " + strings.Join(validation.IsDNS1123Label(ns), "; "))
	case len(validation.IsDNS1123Subdomain(name)) > 0:
		return bad("deployment " + strings.Join(validation.IsDNS1123Subdomain(name), "; "))
	}
	return scaleTarget{Namespace: ns, Name: name}, nil
}

// kubeClient is the management cluster as the worker finds it: --kubeconfig,
// else the pod's ServiceAccount, else $KUBECONFIG or ~/.kube/config.
func kubeClient(ctx context.Context, kubeconfig string, t scaleTarget) (kubernetes.Interface, error) {
	m, err := kube.FindManagement(kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("--scale-down %s: %w", t, err)
	}
	if m.Source == nil {
		return nil, fmt.Errorf("--scale-down %s needs a Kubernetes client: not in a pod and no kubeconfig found; set --kubeconfig", t)
	}
	cs, err := m.Source.Clientset(ctx)
	if err != nil {
		return nil, fmt.Errorf("--scale-down %s (%s): %w", t, m.From, err)
	}
	return cs, nil
}

// checkScaleDown: the Deployment exists and, when it carries the build
// label, runs build: scaling down another build's workers would strand its
// pinned runs.
func checkScaleDown(ctx context.Context, cs kubernetes.Interface, t scaleTarget, build string) error {
	d, err := cs.AppsV1().Deployments(t.Namespace).Get(ctx, t.Name, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("--scale-down %s: %w", t, err)
	}
	if got, ok := d.Spec.Template.Labels[buildLabel]; ok && got != build {
		return fmt.Errorf("--scale-down %s: its pods are build %q (label %s), not %q, the build that drains", t, got, buildLabel, build)
	}
	return nil
}

// scaleDown sets the Deployment's replicas to 0.
func scaleDown(ctx context.Context, cs kubernetes.Interface, t scaleTarget) error {
	_, err := cs.AppsV1().Deployments(t.Namespace).Patch(ctx, t.Name, types.MergePatchType,
		[]byte(`{"spec":{"replicas":0}}`), metav1.PatchOptions{})
	if err != nil {
		return fmt.Errorf("scale %s to 0: %w", t, err)
	}
	return nil
}
