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
// checks (each would say the same). runs is the version the inventory
// says the servers run.
func checkKube(ctx context.Context, cs kubernetes.Interface, rows []Row, versionOf VersionOf, runs string) []Item {
	v, err := cs.Discovery().ServerVersion()
	if err != nil {
		return []Item{Blocker("API reachable", err.Error(), "check kubernetes.kubeconfig: the server address, its CA and the credentials")}
	}
	items := []Item{OK("API reachable", "Kubernetes "+v.GitVersion)}
	items = append(items, checkPermissions(ctx, cs)...)
	for i := range rows {
		rows[i].Items = append(rows[i].Items, checkNode(ctx, cs, rows[i].Node, versionOf, runs)...)
	}
	return items
}

// fixSource is what to set when the version source does not read the runtime.
const fixSource = "set kubernetes.osImagePattern to read the version from the image's osImage, or kubernetes.versionLabel if an agent on every node keeps a label current (docs/production.md#image-contract)"

func checkNode(ctx context.Context, cs kubernetes.Interface, name string, versionOf VersionOf, runs string) []Item {
	n, err := cs.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return []Item{Blocker("node found", "no node "+name, "set the server's nodeName in the inventory to its Kubernetes node name")}
	case err != nil:
		return []Item{Blocker("node found", err.Error(), "allow get nodes")}
	}
	items := []Item{OK("node found", name)}
	ver, err := versionOf(n)
	switch _, perr := model.ParseVersion(ver); {
	case err != nil:
		items = append(items, Blocker("version readable", err.Error(), fixSource))
	case perr != nil:
		items = append(items, Blocker("version readable", fmt.Sprintf("%q: %v", ver, perr), "the version must be major.minor.patch; "+fixSource))
	case runs != "" && ver != runs:
		// Not a blocker: the inventory may predate an upgrade.
		items = append(items, Warning("version readable", fmt.Sprintf("shows %s, the inventory's runtimeVersion is %s", ver, runs),
			"if the node runs "+runs+", its version source reads something else: "+fixSource))
	default:
		items = append(items, OK("version readable", ver))
	}
	if n.Status.NodeInfo.BootID == "" {
		items = append(items, Blocker("boot id reported", "status.nodeInfo.bootID is empty", "the kubelet must report bootID: rackroll judges a reimage by a new boot"))
	} else {
		items = append(items, OK("boot id reported", n.Status.NodeInfo.BootID))
	}
	return items
}

// SourceVersion reads the version through the site's source; a node that
// shows none is an error naming the source and what the node shows.
func SourceVersion(src model.NodeVersionSource) VersionOf {
	return func(n *corev1.Node) (string, error) {
		v, err := src.Read(n.Labels, n.Status.NodeInfo.OSImage)
		if err == nil && v == "" {
			err = fmt.Errorf("node %s shows no version through %s (osImage %q)", n.Name, src, n.Status.NodeInfo.OSImage)
		}
		return v, err
	}
}
