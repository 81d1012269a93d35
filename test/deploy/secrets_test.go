package deploy_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// bmcSecretRole lets the worker read its BMC credentials' Secrets, as
// docs/install.md tells an operator to grant (the base grants no Secret).
const bmcSecretRole = "rackroll-bmc-credentials"

// useBMCSecrets moves the lab's BMC credentials from files into Secrets in
// the worker's namespace (keys username and password), grants the worker
// get on exactly those, and points the inventory's bmcCredentials at them
// (secretRef): every BMC step then reads its Secret with the worker's
// ServiceAccount token.
func useBMCSecrets(t *testing.T, e *e2e.Env) {
	t.Helper()
	ctx := context.Background()
	admin := e.Lab.Kube.Client()
	read := func(path string) []byte {
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		return []byte(strings.TrimSpace(string(b)))
	}
	var names []string
	for n, c := range e.Inventory.BMCCredentials {
		name := "bmc-" + n
		_, err := admin.CoreV1().Secrets(namespace).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name},
			Data: map[string][]byte{"username": read(c.UsernameFile), "password": read(c.PasswordFile)}}, metav1.CreateOptions{})
		require.NoError(t, err)
		e.Inventory.BMCCredentials[n] = model.CredentialRef{SecretRef: &model.SecretRef{Namespace: namespace, Name: name}}
		names = append(names, name)
	}
	_, err := admin.RbacV1().Roles(namespace).Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: bmcSecretRole},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"secrets"}, ResourceNames: names, Verbs: []string{"get"}}}},
		metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = admin.RbacV1().RoleBindings(namespace).Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: bmcSecretRole},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: bmcSecretRole},
		Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: serviceAccount, Namespace: namespace}}}, metav1.CreateOptions{})
	require.NoError(t, err)
}

// revokeBMCSecrets takes the worker's grant on its BMC Secrets away.
func revokeBMCSecrets(t *testing.T, e *e2e.Env) {
	t.Helper()
	require.NoError(t, e.Lab.Kube.Client().RbacV1().RoleBindings(namespace).Delete(context.Background(), bmcSecretRole, metav1.DeleteOptions{}))
}
