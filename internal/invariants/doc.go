// Package invariants checks a lab event log (internal/lab/events) against
// the safety rules rackroll promises, after the fact: whatever the
// workflows believed, the log shows what the hardware and the nodes went
// through. It is pure: the caller reads the log and describes the site.
//
// The rules, each a Violation.Rule:
//
//   - control-plane-one-at-a-time: never more than one control-plane
//     member (an active KCP, role kcp: lease.ControlPlane's definition; the
//     spare is no member, docs/behaviour.md#placement) disrupted at once; a server is
//     disrupted from a reimage-start, power-off or reset until its
//     node-ready. The spare provisioned for a failover while the failed
//     KCP is down is what docs/behaviour.md#remediation asks for.
//   - control-plane-count: no disruption or role change by rackroll takes
//     the active KCPs (role kcp, not disrupted, node not unhealthy) below
//     the site's count.
//   - rack-overlap: compute servers of two racks never in an upgrade reimage
//     at once (reimage-start until node-ready or reimage-failed).
//   - rack-order: the first upgrade reimage of each rack's compute servers
//     comes in natural rack order.
//   - threshold / pause-after-rack: after a unit (rack or management group)
//     that missed its threshold or paused after the rack, no server of
//     another unit starts its upgrade reimage before continue-update.
//   - capacity-pause: no server of a batch the capacity guard held for
//     room (capacityPolicy Pause) is cordoned or has a pod evicted before
//     the operator's continue-update.
//   - storm-guard: no control-plane remediation starts while more than one
//     control-plane node is unhealthy.
//   - ladder-step-once: each ladder step at most once per remediation, and
//     at most one reset (reboot) and one reimage-start (reprovision) of the
//     BMM in the remediation's window.
//   - etcd-quorum: once the lab's etcd has had quorum, the running voting
//     members never fall below the quorum of the voting member set (read
//     from the etcd-member-* events; silent on logs without them).
//   - control-plane-healthy-first: no disruption of a KCP begins while
//     another KCP's node is not Ready, its root filesystem read-only (a
//     readonly-rootfs fault event) or its etcd member is down.
//   - etcd-member-set (Site.EtcdMembership): outside operations and at the
//     end of the log, the etcd members are exactly the active KCPs.
//   - etcd-member-stale (Site.EtcdMembership): no KCP joins etcd while a
//     member of its name is still listed.
package invariants
