// Package kernel is what every BMM workflow is made of; the workflow
// families (cluster, upgrade, remediation, actions, replaceroles,
// keysets) import it and nothing of each other:
//
//   - steps.go, steps_action.go, steps_boot.go, steps_reimage.go,
//     steps_firmware.go: activity Steps on one BMM (cordon, drain, power,
//     reimage judged in band, firmware read and applied);
//   - limits.go: the site's time limits and the step timeout;
//   - ledger.go: the one client the workflows use to talk to the ledger
//     (ClusterWorkflow); lease_prologue.go: the opening every disruptive
//     workflow shares (read, precheck, a read-only probe, lease, recheck);
//   - cpgate.go, cpgate_leader.go: observing the control plane, asking the
//     live gate, moving etcd leadership; kcp_member.go: etcd membership of
//     a KCP;
//   - install_version.go: which runtime a reinstall gets; provision.go:
//     reprovision and wait (a remediation's, a failover's, a role change's);
//     retire.go: a KCP becomes the spare;
//   - route.go: site task queues; summary.go: activity summaries in the UI;
//   - versions.go: the change IDs of all of the above.
package kernel
