package sitecheck

import (
	"context"
	"fmt"

	"github.com/rackroll/rackroll/internal/model"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// VersionOf reads the runtime version a node reports, as the site's
// version source says (a label or a pattern over osImage).
type VersionOf func(n *corev1.Node) (string, error)

// checkKube checks the API and, per BMM, its node; rows gain the node
// items. A site whose API does not answer gets one blocker and no node
// checks (each would say the same).
func checkKube(ctx context.Context, cs kubernetes.Interface, rows []Row, versionOf VersionOf) []Item {
	v, err := cs.Discovery().ServerVersion()
	if err != nil {
		return []Item{Blocker("API reachable", err.Error(), "check kubernetes.kubeconfig: the server address, its CA and the credentials")}
	}
	items := []Item{OK("API reachable", "Kubernetes "+v.GitVersion)}
	items = append(items, checkPermissions(ctx, cs)...)
	for i := range rows {
		rows[i].Items = append(rows[i].Items, checkNode(ctx, cs, rows[i].Node, versionOf)...)
	}
	return items
}

func checkNode(ctx context.Context, cs kubernetes.Interface, name string, versionOf VersionOf) []Item {
	n, err := cs.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return []Item{Blocker("node found", "no node "+name, "set the server's nodeName in the inventory to its Kubernetes node name")}
	case err != nil:
		return []Item{Blocker("node found", err.Error(), "allow get nodes")}
	}
	items := []Item{OK("node found", name)}
	ver, err := versionOf(n)
	if err != nil {
		items = append(items, Blocker("version readable", err.Error(), "make the image set the version label, or set the site's osImagePattern (docs/production.md#image-contract)"))
	} else if _, perr := model.ParseVersion(ver); perr != nil {
		items = append(items, Blocker("version readable", fmt.Sprintf("%q: %v", ver, perr), "the version must be major.minor.patch"))
	} else {
		items = append(items, OK("version readable", ver))
	}
	if n.Status.NodeInfo.BootID == "" {
		items = append(items, Blocker("boot id reported", "status.nodeInfo.bootID is empty", "the kubelet must report bootID: rackroll judges a reimage by a new boot"))
	} else {
		items = append(items, OK("boot id reported", n.Status.NodeInfo.BootID))
	}
	return items
}

// LabelVersion reads the version from a node label.
func LabelVersion(key string) VersionOf {
	return func(n *corev1.Node) (string, error) {
		v, ok := n.Labels[key]
		if !ok || v == "" {
			return "", fmt.Errorf("node %s has no label %s", n.Name, key)
		}
		return v, nil
	}
}
