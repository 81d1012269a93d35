//go:build lab

package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/rackroll/rackroll/internal/lab"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// demoKeyset is the BMC keyset the demo creates: one on-call account.
const demoKeyset = "bmc-demo"

// demoBMCKeyset prepares what a BMC keyset needs on the lab's management
// cluster, as an operator would with kubectl — the namespace and a Secret
// holding a random password, never printed — and writes the keyset file
// into dir. The demo's worker runs outside any pod and reads the Secret
// through its --kubeconfig. It returns the file.
func demoBMCKeyset(ctx context.Context, l *lab.Lab, dir string) (string, error) {
	kc := l.Kube.Client()
	if _, err := kc.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "rackroll"}},
		metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return "", fmt.Errorf("create namespace rackroll: %w", err)
	}
	b := make([]byte, 12) // 16 characters: within every lab profile's password rules
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "rackroll", Name: "bmc-oncall"},
		Data: map[string][]byte{"password": []byte(base64.RawURLEncoding.EncodeToString(b))}}
	if _, err := kc.CoreV1().Secrets("rackroll").Create(ctx, secret, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return "", fmt.Errorf("create secret rackroll/bmc-oncall: %w", err)
	}
	file := filepath.Join(dir, demoKeyset+".yaml")
	body := fmt.Sprintf(`name: %s
kind: bmc
description: the demo's on-call BMC account
role: Operator
expiration: %s
accounts:
  - name: oncall
    passwordSecretRef: {namespace: rackroll, name: bmc-oncall, key: password}
`, demoKeyset, time.Now().Add(7*24*time.Hour).UTC().Format(time.RFC3339))
	return file, os.WriteFile(file, []byte(body), 0o600)
}
