package sitecheck

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/lab/kubeapi/kubeapitest"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

func TestMain(m *testing.M) { kubeapitest.Main(m) }

func itemNamed(t *testing.T, items []Item, check string) Item {
	t.Helper()
	for _, it := range items {
		if it.Check == check {
			return it
		}
	}
	t.Fatalf("no %q among %+v", check, items)
	return Item{}
}

func TestKubeChecksNodesAndPermissions(t *testing.T) {
	srv := kubeapitest.Server(t)
	ctx := context.Background()
	admin := srv.Client()
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "sc-good", Labels: map[string]string{model.LabelRuntimeVersion: "4.1.2"}}}
	_, err := admin.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
	require.NoError(t, err)
	node, err = admin.CoreV1().Nodes().Get(ctx, "sc-good", metav1.GetOptions{})
	require.NoError(t, err)
	node.Status.NodeInfo.BootID = "boot-1"
	_, err = admin.CoreV1().Nodes().UpdateStatus(ctx, node, metav1.UpdateOptions{})
	require.NoError(t, err)
	unlabelled := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "sc-nolabel"}}
	_, err = admin.CoreV1().Nodes().Create(ctx, unlabelled, metav1.CreateOptions{})
	require.NoError(t, err)

	rows := []Row{{BMM: "a", Node: "sc-good"}, {BMM: "b", Node: "sc-missing"}, {BMM: "c", Node: "sc-nolabel"}}
	items := checkKube(ctx, admin, rows, SourceVersion(model.NodeVersionSource{Label: model.LabelRuntimeVersion}), "4.1.2")
	require.True(t, itemNamed(t, items, "API reachable").OK)
	for _, it := range items {
		require.True(t, it.OK, "the lab's admin may do everything: %+v", it)
	}
	require.Equal(t, "4.1.2", itemNamed(t, rows[0].Items, "version readable").Detail)
	require.True(t, itemNamed(t, rows[0].Items, "boot id reported").OK)
	missing := itemNamed(t, rows[1].Items, "node found")
	require.False(t, missing.OK)
	require.True(t, missing.Blocker)
	require.Contains(t, missing.Fix, "nodeName")
	noLabel := itemNamed(t, rows[2].Items, "version readable")
	require.False(t, noLabel.OK)
	require.Contains(t, noLabel.Detail, model.LabelRuntimeVersion)
	require.False(t, itemNamed(t, rows[2].Items, "boot id reported").OK)
}

// The default source reads osImage: a stock node whose image names its
// version passes; one whose osImage carries none is a blocker saying what
// to set; one that shows another version than the inventory's is warned.
func TestKubeReadsTheVersionFromOSImageByDefault(t *testing.T) {
	srv := kubeapitest.Server(t)
	ctx := context.Background()
	admin := srv.Client()
	for name, osImage := range map[string]string{"sc-os-good": "rackroll 4.1.2 (lab)", "sc-os-ubuntu": "Ubuntu 22.04.4 LTS", "sc-os-other": "Acme OS 2.3.1"} {
		_, err := admin.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name,
			Labels: map[string]string{model.LabelRuntimeVersion: "4.1.2"}}}, metav1.CreateOptions{})
		require.NoError(t, err)
		n, err := admin.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		require.NoError(t, err)
		n.Status.NodeInfo.BootID, n.Status.NodeInfo.OSImage = "boot-1", osImage
		_, err = admin.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{})
		require.NoError(t, err)
	}
	rows := []Row{{BMM: "a", Node: "sc-os-good"}, {BMM: "b", Node: "sc-os-ubuntu"}, {BMM: "c", Node: "sc-os-other"}}
	checkKube(ctx, admin, rows, SourceVersion(model.NodeVersionSource{}), "4.1.2")
	good := itemNamed(t, rows[0].Items, "version readable")
	require.True(t, good.OK)
	require.Equal(t, "4.1.2", good.Detail)
	blind := itemNamed(t, rows[1].Items, "version readable")
	require.True(t, blind.Blocker)
	require.Contains(t, blind.Detail, `shows no version through osImage (its first major.minor.patch, the default) (osImage "Ubuntu 22.04.4 LTS")`)
	require.Contains(t, blind.Fix, "kubernetes.osImagePattern")
	other := itemNamed(t, rows[2].Items, "version readable")
	require.False(t, other.OK)
	require.False(t, other.Blocker, "the inventory may predate an upgrade")
	require.Equal(t, "shows 2.3.1, the inventory's runtimeVersion is 4.1.2", other.Detail)
}

// A kubeconfig whose identity may do everything but delete nodes gets
// exactly that blocker, naming the verb and why rackroll needs it.
func TestKubeNamesTheMissingPermission(t *testing.T) {
	srv := kubeapitest.Server(t)
	ctx := context.Background()
	admin := srv.Client()
	var rules []rbacv1.PolicyRule
	for _, p := range needed {
		if p.verb == "delete" && p.resource == "nodes" {
			continue
		}
		res := p.resource
		if p.subresource != "" {
			res += "/" + p.subresource
		}
		rules = append(rules, rbacv1.PolicyRule{Verbs: []string{p.verb}, APIGroups: []string{p.group}, Resources: []string{res}})
	}
	_, err := admin.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "sc-limited"}, Rules: rules}, metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = admin.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "sc-limited"},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "sc-limited"},
		Subjects:   []rbacv1.Subject{{Kind: "User", APIGroup: "rbac.authorization.k8s.io", Name: "sc-limited"}},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	cfg := srv.RESTConfig()
	cfg.Impersonate.UserName = "sc-limited"
	limited, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)

	// The RBAC authorizer learns of a new binding from its informers: wait
	// until a granted verb shows, then judge once.
	require.Eventually(t, func() bool {
		return itemNamed(t, checkPermissions(ctx, limited), "may get nodes").OK
	}, 30*time.Second, 100*time.Millisecond, "the binding never took effect")
	items := checkPermissions(ctx, limited)
	var denied []Item
	for _, it := range items {
		if !it.OK {
			denied = append(denied, it)
		}
	}
	require.Len(t, denied, 1, "%+v", items)
	require.Equal(t, "may delete nodes", denied[0].Check)
	require.True(t, denied[0].Blocker)
	require.True(t, strings.Contains(denied[0].Fix, "remove a failed server's node"), denied[0].Fix)
}
