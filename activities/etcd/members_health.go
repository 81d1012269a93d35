package etcd

import (
	"context"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/rackroll/rackroll/internal/etcdquorum"
)

// memberView is one member with what its own status said.
type memberView struct {
	Member
	id      uint64
	leader  uint64 // whom it believes leads (0 none)
	term    uint64
	applied uint64
}

// membersWithHealth lists the members and asks each for its status on its
// own client URL; a member that does not answer is unhealthy, with why.
func (a *Activities) membersWithHealth(ctx context.Context, cli *clientv3.Client) ([]memberView, error) {
	lctx, cancel := context.WithTimeout(ctx, a.requestTimeout())
	list, err := cli.MemberList(lctx)
	cancel()
	if err != nil {
		return nil, err
	}
	var out []memberView
	for _, m := range list.Members {
		v := memberView{id: m.ID, Member: Member{Name: m.Name, ID: fmt.Sprintf("%x", m.ID), Learner: m.IsLearner}}
		if len(m.PeerURLs) > 0 {
			v.PeerURL = m.PeerURLs[0]
		}
		if len(m.ClientURLs) > 0 {
			v.ClientURL = m.ClientURLs[0]
		}
		switch {
		case v.Name == "":
			v.Err = "added but never started"
		case v.ClientURL == "":
			v.Err = "no client URL"
		default:
			sctx, cancel := context.WithTimeout(ctx, a.requestTimeout())
			st, err := cli.Status(sctx, v.ClientURL)
			cancel()
			if err != nil {
				v.Err = err.Error()
				break
			}
			if len(st.Errors) > 0 {
				v.Err = fmt.Sprint(st.Errors)
				break
			}
			v.Healthy, v.Revision = true, st.Header.GetRevision()
			v.leader, v.term, v.applied, v.AppliedIndex = st.Leader, st.RaftTerm, st.RaftAppliedIndex, st.RaftAppliedIndex
		}
		out = append(out, v)
	}
	// The leader is whom the member with the highest term names.
	var term, leader uint64
	for _, v := range out {
		if v.Healthy && v.term >= term && v.leader != 0 {
			term, leader = v.term, v.leader
		}
	}
	for i := range out {
		out[i].Leader = leader != 0 && out[i].id == leader
	}
	return out, nil
}

// quorumMembers is the list etcdquorum decides on.
func quorumMembers(vs []memberView) []etcdquorum.Member {
	out := make([]etcdquorum.Member, len(vs))
	for i, v := range vs {
		out[i] = etcdquorum.Member{Name: v.Name, Healthy: v.Healthy, Learner: v.Learner}
	}
	return out
}

func findMember(vs []memberView, name string) (memberView, bool) {
	for _, v := range vs {
		if v.Name == name {
			return v, true
		}
	}
	return memberView{}, false
}

func leaderOf(vs []memberView) (memberView, bool) {
	for _, v := range vs {
		if v.Leader {
			return v, true
		}
	}
	return memberView{}, false
}
