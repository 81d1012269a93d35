package growth_test

import (
	"context"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// apiProbe asks the kube-apiserver for a namespace every 200 ms (a read
// that reaches etcd, unlike /version) and counts the answers it did not
// get, so a growth that takes the API down, even briefly, shows.
type apiProbe struct {
	mu               sync.Mutex
	probes, failures int
	firstErr         error
	stop             context.CancelFunc
	done             chan struct{}
}

func startProbe(kc kubernetes.Interface) *apiProbe {
	ctx, stop := context.WithCancel(context.Background())
	p := &apiProbe{stop: stop, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			c, cancel := context.WithTimeout(ctx, 5*time.Second)
			_, err := kc.CoreV1().Namespaces().Get(c, "default", metav1.GetOptions{})
			cancel()
			if ctx.Err() != nil {
				return
			}
			p.mu.Lock()
			p.probes++
			if err != nil {
				p.failures++
				if p.firstErr == nil {
					p.firstErr = err
				}
			}
			p.mu.Unlock()
		}
	}()
	return p
}

// Stop ends the probe and returns its counts.
func (p *apiProbe) Stop() (probes, failures int, firstErr error) {
	p.stop()
	<-p.done
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.probes, p.failures, p.firstErr
}
