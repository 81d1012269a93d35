package kube

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// InCluster is a ClientSource using the credentials of the pod the worker
// runs in: its ServiceAccount's token and the cluster's CA
// (rest.InClusterConfig). client-go rereads the projected token as the
// kubelet rotates it.
func InCluster() ClientSource { return &inCluster{config: rest.InClusterConfig} }

type inCluster struct {
	config func() (*rest.Config, error)
	mu     sync.Mutex
	cs     kubernetes.Interface
}

func (s *inCluster) Clientset(context.Context) (kubernetes.Interface, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cs != nil {
		return s.cs, nil
	}
	cfg, err := s.config()
	if errors.Is(err, rest.ErrNotInCluster) {
		return nil, fmt.Errorf("kubernetes.inCluster is true but this process is not in a pod: KUBERNETES_SERVICE_HOST is not set " +
			"(run the worker in the cluster with its ServiceAccount, deploy/, or give the inventory a kubernetes.kubeconfig)")
	}
	if err != nil {
		return nil, fmt.Errorf("kubernetes.inCluster: the pod's ServiceAccount credentials: %w", err)
	}
	Tune(cfg)
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("kubernetes.inCluster: %w", err)
	}
	s.cs = cs
	return cs, nil
}
