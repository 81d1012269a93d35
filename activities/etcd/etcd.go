// Package etcd holds the activities that read and change the control
// plane's etcd cluster (go.etcd.io/etcd/client/v3): observe members, health
// and alarms; move leadership; remove and wait for members. The site's
// inventory names the endpoints and the client TLS files
// (controlPlane.etcd); the worker reads the files, so no key travels
// through Temporal.
//
// Members are named after their KCP's Kubernetes node (the kubeadm
// convention), which is how workflows refer to them.
package etcd

import (
	"fmt"
	"time"

	"github.com/rackroll/rackroll/internal/model"
	"go.etcd.io/etcd/client/pkg/v3/transport"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// Activities are registered with a worker; the zero value works with
// defaults. Every exported method is an activity.
type Activities struct {
	DialTimeout    time.Duration // default 5s
	RequestTimeout time.Duration // per call; default 5s
	PollInterval   time.Duration // WaitMemberHealthy's; default 1s
}

func (a *Activities) dialTimeout() time.Duration {
	if a != nil && a.DialTimeout > 0 {
		return a.DialTimeout
	}
	return 5 * time.Second
}

func (a *Activities) requestTimeout() time.Duration {
	if a != nil && a.RequestTimeout > 0 {
		return a.RequestTimeout
	}
	return 5 * time.Second
}

// Member is one etcd member as observed.
type Member struct {
	Name      string `json:"name"`
	ID        string `json:"id"` // hex, as etcdctl prints it
	PeerURL   string `json:"peerURL,omitempty"`
	ClientURL string `json:"clientURL,omitempty"`
	Learner   bool   `json:"learner,omitempty"`
	// Healthy: the member answered a status request and reports no error.
	Healthy  bool  `json:"healthy"`
	Leader   bool  `json:"leader,omitempty"`
	Revision int64 `json:"revision,omitempty"`
	// AppliedIndex is the member's raft applied index, to tell how far
	// behind the leader it is.
	AppliedIndex uint64 `json:"appliedIndex,omitempty"`
	Err          string `json:"err,omitempty"` // why not healthy, as observed
}

// Observation is the etcd cluster as seen at SeenAt.
type Observation struct {
	SeenAt  time.Time `json:"seenAt"`
	Members []Member  `json:"members"`
	Alarms  []string  `json:"alarms,omitempty"` // e.g. "NOSPACE on rack1-mgmt1"
	// Err is set when the cluster could not be read at all (no endpoint
	// answered): that is itself a finding, not an activity failure.
	Err string `json:"err,omitempty"`
}

// dial connects to spec's endpoints with its client TLS files.
func (a *Activities) dial(spec model.EtcdSpec) (*clientv3.Client, error) {
	// The client's own retry warnings would log every down member at every
	// observation; what was seen is reported in the Observation instead.
	cfg := clientv3.Config{Endpoints: spec.Endpoints, DialTimeout: a.dialTimeout(), Logger: zap.NewNop()}
	if spec.CAFile != "" || spec.CertFile != "" {
		info := transport.TLSInfo{TrustedCAFile: spec.CAFile, CertFile: spec.CertFile, KeyFile: spec.KeyFile}
		tc, err := info.ClientConfig()
		if err != nil {
			return nil, fmt.Errorf("etcd client TLS from controlPlane.etcd (caFile %q, certFile %q, keyFile %q): %w", spec.CAFile, spec.CertFile, spec.KeyFile, err)
		}
		cfg.TLS = tc
	}
	return clientv3.New(cfg)
}
