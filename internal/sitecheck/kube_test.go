package sitecheck

import (
	"context"
	"strings"
	"testing"

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
	items := checkKube(ctx, admin, rows, LabelVersion(model.LabelRuntimeVersion))
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
