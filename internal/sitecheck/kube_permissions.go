package sitecheck

import (
	"context"
	"fmt"

	"github.com/rackroll/rackroll/internal/keyset"
	authv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// permission is one thing rackroll's activities do through the API, and
// why (activities/kube: cordon, drain, VM shutdown, node reads and removal,
// the BMM keysets' pods); cluster-wide unless a namespace is named.
type permission struct {
	verb, group, resource, subresource string
	namespace                          string
	why                                string
}

// needed lists what the worker's identity must be allowed: cluster-wide,
// exactly the calls activities/kube and kubectl's drain helper make, and
// what deploy/clusterrole.yaml grants; in keyset.NodeNamespace, what
// deploy/keysets.yaml's Role grants (test/deploy holds each pair equal).
// Not needed cluster-wide: delete pods (the drain evicts; it deletes only on an API
// without the eviction subresource), PodDisruptionBudgets (the eviction
// API applies them), watch (waits poll).
var needed = []permission{
	{"get", "", "nodes", "", "", "read a node's Ready condition, bootID and version"},
	{"list", "", "nodes", "", "", "observe the control plane and the health of every node"},
	{"patch", "", "nodes", "", "", "cordon, uncordon and label nodes"},
	{"delete", "", "nodes", "", "", "remove a failed server's node"},
	{"list", "", "pods", "", "", "find the pods and VMs to drain"},
	{"get", "", "pods", "", "", "follow evictions until the pods are gone"},
	{"patch", "", "pods", "", "", "shut down and restart tenant VMs"},
	{"create", "", "pods", "eviction", "", "drain tenant pods within their disruption budgets"},
	{"get", "apps", "daemonsets", "", "", "leave DaemonSet pods in place during a drain"},
	{"get", "", "persistentvolumeclaims", "", "", "find the volumes of the pods a drain moves"},
	{"get", "", "persistentvolumes", "", "", "tell a pod on its node's local storage, which cannot move"},
	// In keyset.NodeNamespace only: deploy/keysets.yaml's Role.
	{"create", "", "pods", "", keyset.NodeNamespace, "make a node's BMM keyset pod"},
	{"get", "", "pods", "", keyset.NodeNamespace, "follow a BMM keyset pod until it answers"},
	{"delete", "", "pods", "", keyset.NodeNamespace, "remove a BMM keyset pod once it answered"},
}

// Needed lists the cluster-wide permissions (deploy/clusterrole.yaml's)
// as "verb resource[/subresource][.group]", the names the checks carry
// ("may " + it).
func Needed() []string { return names(false) }

// NeededInNamespaces lists the others as "verb resource in namespace"
// (deploy/keysets.yaml's Role), after Needed's in the checks.
func NeededInNamespaces() []string { return names(true) }

func names(namespaced bool) []string {
	var out []string
	for _, p := range needed {
		if (p.namespace != "") == namespaced {
			out = append(out, p.verb+" "+p.name())
		}
	}
	return out
}

func (p permission) name() string {
	res := p.resource
	if p.subresource != "" {
		res += "/" + p.subresource
	}
	if p.group != "" {
		res += "." + p.group
	}
	if p.namespace != "" {
		res += " in " + p.namespace
	}
	return res
}

// checkPermissions asks the API server, with SelfSubjectAccessReviews,
// whether the kubeconfig's identity may do each needed thing.
func checkPermissions(ctx context.Context, cs kubernetes.Interface) []Item {
	var out []Item
	for _, p := range needed {
		res := p.name()
		name := fmt.Sprintf("may %s %s", p.verb, res)
		r, err := cs.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, &authv1.SelfSubjectAccessReview{
			Spec: authv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &authv1.ResourceAttributes{
				Verb: p.verb, Group: p.group, Resource: p.resource, Subresource: p.subresource, Namespace: p.namespace}},
		}, metav1.CreateOptions{})
		switch {
		case err != nil:
			out = append(out, Blocker(name, "the access review failed: "+err.Error(), "allow the identity to create selfsubjectaccessreviews, then check again"))
		case r.Status.Allowed:
			out = append(out, OK(name, p.why))
		default:
			detail := "denied"
			if r.Status.Reason != "" {
				detail += ": " + r.Status.Reason
			}
			fix := fmt.Sprintf("grant %s on %s cluster-wide (needed to %s)", p.verb, res, p.why)
			if p.namespace != "" {
				fix = fmt.Sprintf("grant %s on %s (deploy/keysets.yaml's Role; needed to %s)", p.verb, res, p.why)
			}
			out = append(out, Blocker(name, detail, fix))
		}
	}
	return out
}
