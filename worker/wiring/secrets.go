package wiring

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// secretsIn reads Secrets (kubeconfigSecretRef, the BMC credentials'
// secretRef) from the cluster the worker runs in; nil when it runs in none.
func secretsIn(management func() (kubernetes.Interface, error)) func(ctx context.Context, namespace, name string) (map[string][]byte, error) {
	if management == nil {
		return nil
	}
	return func(ctx context.Context, namespace, name string) (map[string][]byte, error) {
		cs, err := management()
		if err != nil {
			return nil, err
		}
		s, err := cs.CoreV1().Secrets(namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		return s.Data, nil
	}
}
