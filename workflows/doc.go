// Package workflows holds rackroll's Temporal workflows: they decide, in
// the order the operator rules give (docs/behaviour.md), what happens to a
// site, and leave every I/O to the activities. Register (register.go) puts
// each on a worker under its name in internal/api; the ids, signals,
// queries and updates are listed in docs/design.md#the-workflows-and-their-ids.
//
// Which file holds which workflow (type — id — files):
//
//   - ClusterWorkflow — cluster:<cluster> — the ledger, the single writer of
//     what rackroll knows of a site and of its disruption leases:
//     cluster.go (the loop, Updates, continue-as-new), cluster_breakglass.go
//     (resume, lease release), cluster_remediation.go (remediation facts of a
//     patch), cluster_replan.go (registration of a changed inventory).
//     ledger.go is the one client the other workflows use to talk to it;
//     lease_prologue.go is the opening every disruptive workflow shares.
//   - RuntimeUpgradeWorkflow — upgrade:<cluster> — upgrade.go (the phases in
//     order, continue/cancel), upgrade_phases.go (control plane, management
//     groups, compute racks), upgrade_kcpgate.go (the live gate on KCP
//     steps), upgrade_retire.go (the last KCP becomes the spare),
//     upgrade_etcd_members.go (waiting for etcd members), upgrade_details.go
//     (the UI's Current Details), and the guards (docs/behaviour.md#guards):
//     upgrade_image.go (image preflight), upgrade_canary.go (stop on
//     systemic failure), upgrade_capacity.go (capacity before drain).
//   - RackUpgradeWorkflow — upgrade:<cluster>:unit:<rack> — rack.go, with
//     rack_report.go (progress reports to the parent).
//   - ServerUpgradeWorkflow — upgrade:<cluster>:<bmm> — server.go, with
//     server_wait_lease.go (waiting out a remediation's lease).
//   - BMMActionWorkflow — action:<cluster>:<bmm>:<n> — action.go (limits,
//     lease, dispatch), action_power.go (restart, power-off, start),
//     action_reimage.go (reimage, replace), action_cordon.go (cordon,
//     uncordon).
//   - TroubleshootWorkflow — troubleshoot:<cluster>:<bmm> — troubleshoot.go,
//     troubleshoot_ladder.go (the runbook per problem).
//   - HealthMonitorWorkflow — monitor:<cluster> — monitor.go (the loop),
//     monitor_round.go (one round: triggers, admission, storm guard),
//     monitor_record.go (node health written to the ledger).
//   - RemediationWorkflow — remediate:<cluster>:<bmm> — remediation.go,
//     remediation_ladder.go (the steps of a ladder).
//   - KCPFailoverWorkflow — failover:<cluster> — failover.go,
//     failover_gate.go (the gate on the spare's promotion),
//     failover_nospare.go (a failed KCP with no usable spare),
//     failover_resume.go (finishing an interrupted failover),
//     failover_fallback.go (a spare that cannot be provisioned: the next
//     healthy management server instead), failover_versions.go (its
//     workflow.GetVersion gates).
//   - ReplaceRolesWorkflow — replace-roles:<cluster> — replace_roles.go,
//     replace_roles_steps.go (one role change).
//
// Shared by several workflows: steps.go, steps_action.go and
// steps_reimage.go (activity steps on one BMM: cordon, drain, power,
// reimage judged in band), cpgate.go and cpgate_leader.go (observing the
// control plane, asking the live gate, moving etcd leadership),
// kcp_member.go (etcd membership of a KCP), install_version.go (which
// runtime a reinstall gets), route.go (site task queues), summary.go
// (activity summaries in the UI).
//
// Tests: unit tests run in the SDK's test environment beside the code;
// the end-to-end tests that need the lab live under test/, one package per
// area (test/upgrade, test/controlplane, test/actions, test/bench), all set
// up by test/e2e; replay_test.go and determinism_test.go replay the recorded histories in
// testdata/histories (docs/reliability.md#workflow-histories).
package workflows
