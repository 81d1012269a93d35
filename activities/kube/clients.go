package kube

import (
	"context"
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// ClientSource yields the clientset of the site's cluster. It resolves
// credentials inside the worker, so no activity input carries them.
type ClientSource interface {
	Clientset(ctx context.Context) (kubernetes.Interface, error)
}

// Static is a ClientSource for a clientset built elsewhere (tests use
// fake clientsets).
func Static(cs kubernetes.Interface) ClientSource { return static{cs} }

type static struct{ cs kubernetes.Interface }

func (s static) Clientset(context.Context) (kubernetes.Interface, error) { return s.cs, nil }

// Kubeconfig is a ClientSource reading the kubeconfig file at path on
// first use; the client is then reused. A failure is not cached, so a
// fixed file is picked up on the next attempt.
func Kubeconfig(path string) ClientSource { return &kubeconfig{path: path} }

// ClientSource implementations to come: a Secret holding the kubeconfig
// (kubeconfigSecretRef in the inventory).

type kubeconfig struct {
	path string
	mu   sync.Mutex
	cs   kubernetes.Interface
}

// Client QPS above client-go's default of 5: a drain evicts every pod of
// a node at once and polls each of them.
const (
	clientQPS   = 50
	clientBurst = 100
)

// Tune sets what every rackroll clientset asks of a site's apiserver: the
// rate above, and protobuf for the built-in kinds (all rackroll reads),
// which the apiserver encodes and the worker decodes at a fraction of
// JSON's cost — as kube-controller-manager and the kubelet ask too.
func Tune(cfg *rest.Config) {
	cfg.QPS, cfg.Burst = clientQPS, clientBurst
	cfg.ContentType = runtime.ContentTypeProtobuf
	cfg.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
}

// Default is a ClientSource that finds the kubeconfig as kubectl does:
// $KUBECONFIG, else ~/.kube/config.
func Default() ClientSource { return &kubeconfig{} }

func (k *kubeconfig) Clientset(context.Context) (kubernetes.Interface, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.cs != nil {
		return k.cs, nil
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	where := "$KUBECONFIG or ~/.kube/config"
	if k.path != "" {
		rules.ExplicitPath, where = k.path, k.path
	}
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("load kubeconfig from %s: %w (point the worker at the site's kubeconfig)", where, err)
	}
	Tune(cfg)
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("kubeconfig %s: %w", k.path, err)
	}
	k.cs = cs
	return cs, nil
}
