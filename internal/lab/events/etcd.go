package events

// Kinds the lab's etcd cluster emits. BMM is the KCP the member runs on;
// detail.member is the member's name (the node name, kubeadm's convention)
// and detail.id its hex ID where known.
const (
	// EtcdMemberAdd: a member joined the member list (detail.learner when
	// added as a learner, detail.initial for the members the lab starts
	// with, detail.by "client" when someone other than the lab added it).
	EtcdMemberAdd = "etcd-member-add"
	// EtcdMemberPromote: a learner became a voter.
	EtcdMemberPromote = "etcd-member-promote"
	// EtcdMemberRemove: a member left the member list (detail.by "lab" when
	// the lab's join removed a stale one, "client" otherwise).
	EtcdMemberRemove = "etcd-member-remove"
	// EtcdMemberStale: a KCP joining found a member of its own name still in
	// the list: nobody removed it before the disk was wiped.
	EtcdMemberStale = "etcd-member-stale"
	// EtcdMemberStart / EtcdMemberStop: the member's process started or
	// stopped (detail.wiped when its data went with it, detail.exited when
	// it stopped on its own).
	EtcdMemberStart = "etcd-member-start"
	EtcdMemberStop  = "etcd-member-stop"
	// EtcdLeader: the leader changed; detail.leader is the new leader's
	// member name, "" when no member sees a leader (quorum lost).
	EtcdLeader = "etcd-leader"
)
