package etcd

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.temporal.io/sdk/temporal"
)

// ObserveInput names the etcd cluster to observe.
type ObserveInput struct {
	Spec model.EtcdSpec `json:"spec"`
}

// ObserveEtcd reads, fresh, the member list, each member's status through
// its own client URL (so a member that is down shows as such even while
// the others answer), the leader and the alarms. A cluster that cannot be
// read at all is an Observation with Err: for the gate that is a finding,
// and retrying the activity would only delay the refusal.
func (a *Activities) ObserveEtcd(ctx context.Context, in ObserveInput) (Observation, error) {
	if len(in.Spec.Endpoints) == 0 {
		return Observation{}, temporal.NewNonRetryableApplicationError(
			"observe etcd: controlPlane.etcd.endpoints is empty: name at least one client URL", api.ErrInvalidInput, nil)
	}
	cli, err := a.dial(in.Spec)
	if err != nil {
		if strings.Contains(err.Error(), "client TLS") {
			return Observation{}, temporal.NewNonRetryableApplicationError("observe etcd: "+err.Error(), api.ErrInvalidInput, nil)
		}
		return Observation{SeenAt: time.Now().UTC(), Err: err.Error()}, nil
	}
	defer cli.Close()
	obs := a.observe(ctx, cli)
	obs.SeenAt = time.Now().UTC()
	return obs, nil
}

func (a *Activities) observe(ctx context.Context, cli *clientv3.Client) Observation {
	var obs Observation
	lctx, cancel := context.WithTimeout(ctx, a.requestTimeout())
	ml, err := cli.MemberList(lctx)
	cancel()
	if err != nil {
		obs.Err = fmt.Sprintf("member list from %s: %v", strings.Join(cli.Endpoints(), ", "), err)
		return obs
	}
	names := map[uint64]string{}
	for _, m := range ml.Members {
		mem := Member{Name: m.Name, ID: fmt.Sprintf("%x", m.ID), Learner: m.IsLearner}
		if len(m.PeerURLs) > 0 {
			mem.PeerURL = m.PeerURLs[0]
		}
		if mem.Name == "" {
			mem.Name = mem.ID // added, not started yet: etcd knows no name
		}
		names[m.ID] = mem.Name
		switch {
		case len(m.ClientURLs) == 0:
			mem.Err = "not started (no client URL)"
		default:
			mem.ClientURL = m.ClientURLs[0]
			a.status(ctx, cli, &mem)
		}
		obs.Members = append(obs.Members, mem)
	}
	actx, cancel := context.WithTimeout(ctx, a.requestTimeout())
	al, err := cli.AlarmList(actx)
	cancel()
	if err != nil {
		obs.Err = fmt.Sprintf("alarm list: %v", err)
		return obs
	}
	for _, am := range al.Alarms {
		who := names[am.MemberID]
		if who == "" {
			who = fmt.Sprintf("%x", am.MemberID)
		}
		obs.Alarms = append(obs.Alarms, fmt.Sprintf("%s on %s", am.Alarm, who))
	}
	return obs
}

// status asks m for its own status at its client URL; an answer carrying
// errors (e.g. a member that lost its leader) is unhealthy too.
func (a *Activities) status(ctx context.Context, cli *clientv3.Client, m *Member) {
	sctx, cancel := context.WithTimeout(ctx, a.requestTimeout())
	defer cancel()
	st, err := cli.Status(sctx, m.ClientURL)
	if err != nil {
		m.Err = fmt.Sprintf("status at %s: %v", m.ClientURL, err)
		if errors.Is(err, context.DeadlineExceeded) {
			m.Err = fmt.Sprintf("status at %s: no answer within %s", m.ClientURL, a.requestTimeout())
		}
		return
	}
	if len(st.Errors) > 0 {
		m.Err = strings.Join(st.Errors, "; ")
		return
	}
	m.Revision = st.Header.GetRevision()
	m.Leader = st.Leader != 0 && st.Leader == st.Header.GetMemberId()
	m.Healthy = st.Leader != 0
	if !m.Healthy {
		m.Err = "no leader"
	}
}
