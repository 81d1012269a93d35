package kube

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// The management cluster is the one the worker belongs to: it holds the
// Secrets the worker reads (a BMC keyset's passwords, kubeconfigSecretRef,
// BMC credentials' secretRef). A worker finds it as client-go programs do
// (docs/install.md#a-worker-outside-a-pod), so `make worker`, the demo and
// a worker on a jump host read Secrets as the one in a pod does.

// Management is where the worker found its management cluster: a
// ClientSource and, for its log and its errors, where it came from.
type Management struct {
	Source ClientSource
	From   string
}

// FindManagement looks for the management cluster, in order: explicit
// (the worker's --kubeconfig: an operator's choice beats any inference),
// the pod's ServiceAccount (in-cluster), then client-go's default loading
// rules ($KUBECONFIG, a list of files, else ~/.kube/config). No
// configuration at all is not an error: the result has no Source and the
// worker reads no Secrets. A configuration that exists and does not load
// is one, naming where it was read.
func FindManagement(explicit string) (Management, error) {
	return findManagement(explicit, rest.InClusterConfig, clientcmd.NewDefaultClientConfigLoadingRules())
}

// findManagement is FindManagement with the pod's credentials and the
// loading rules given: tests do not depend on the caller's pod, home or
// $KUBECONFIG.
func findManagement(explicit string, inCluster func() (*rest.Config, error), rules *clientcmd.ClientConfigLoadingRules) (Management, error) {
	if explicit == "" {
		cfg, err := inCluster()
		switch {
		case err == nil:
			return Management{Source: &built{cfg: cfg}, From: "in-cluster (the pod's ServiceAccount)"}, nil
		case !errors.Is(err, rest.ErrNotInCluster):
			return Management{}, fmt.Errorf("management cluster: in a pod, but its ServiceAccount's credentials do not load: %w", err)
		}
	}
	rules.ExplicitPath = explicit
	from := kubeconfigFrom(rules)
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{})
	cfg, err := cc.ClientConfig()
	switch {
	case err == nil:
		if raw, rerr := cc.RawConfig(); rerr == nil && raw.CurrentContext != "" {
			from += ", context " + raw.CurrentContext
		}
		return Management{Source: &built{cfg: cfg}, From: from}, nil
	case explicit == "" && os.Getenv(clientcmd.RecommendedConfigPathEnvVar) == "" && clientcmd.IsEmptyConfig(err):
		return Management{}, nil
	case clientcmd.IsEmptyConfig(err):
		// $KUBECONFIG names files that do not exist (client-go skips them):
		// the operator meant one, so say so rather than read no Secrets.
		return Management{}, fmt.Errorf("management cluster: %s holds no cluster: set --kubeconfig or $KUBECONFIG to a kubeconfig file that exists", from)
	}
	return Management{}, fmt.Errorf("management cluster: load %s: %w", from, err)
}

// kubeconfigFrom says which files the loading rules read, as the worker
// logs it: the explicit one, else $KUBECONFIG's list, else the default.
func kubeconfigFrom(rules *clientcmd.ClientConfigLoadingRules) string {
	if rules.ExplicitPath != "" {
		return "kubeconfig " + rules.ExplicitPath + " (--kubeconfig)"
	}
	if env := os.Getenv(clientcmd.RecommendedConfigPathEnvVar); env != "" {
		return "kubeconfig " + strings.Join(rules.Precedence, ",") + " ($KUBECONFIG)"
	}
	return "kubeconfig " + strings.Join(rules.Precedence, ",")
}

// Clientset makes a Management usable where the wiring wants a function;
// nil when none was found.
func (m Management) Clientset() func() (kubernetes.Interface, error) {
	if m.Source == nil {
		return nil
	}
	return func() (kubernetes.Interface, error) { return m.Source.Clientset(context.Background()) }
}

// built is a ClientSource over a rest.Config already loaded; the clientset
// is made once.
type built struct {
	cfg *rest.Config
	mu  sync.Mutex
	cs  kubernetes.Interface
}

func (b *built) Clientset(context.Context) (kubernetes.Interface, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cs != nil {
		return b.cs, nil
	}
	cfg := rest.CopyConfig(b.cfg)
	Tune(cfg)
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("management cluster: %w", err)
	}
	b.cs = cs
	return cs, nil
}
