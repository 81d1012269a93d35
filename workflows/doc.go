// Package workflows holds rackroll's Temporal workflows: they decide, in
// the order the operator rules give (docs/behaviour.md), what happens to a
// site, and leave every I/O to the activities. This package is only the
// map and the registration: Register (register.go) puts each workflow on a
// worker under its name in internal/api; the ids, signals, queries and
// updates are listed in docs/design.md#the-workflows-and-their-ids.
//
// The workflows live in one package per family, around a shared kernel
// (type — id — package):
//
//   - ClusterWorkflow — cluster:<cluster> — cluster: the ledger, the single
//     writer of what rackroll knows of a site and of its disruption leases.
//   - RuntimeUpgradeWorkflow — upgrade:<cluster>, RackUpgradeWorkflow —
//     upgrade:<cluster>:unit:<rack>, ServerUpgradeWorkflow —
//     upgrade:<cluster>:<bmm> — upgrade: the phases, the guards, the KCP
//     gate and retire, the rack and server children.
//   - HealthMonitorWorkflow — monitor:<cluster>, RemediationWorkflow —
//     remediate:<cluster>:<bmm>, KCPFailoverWorkflow — failover:<cluster> —
//     remediation: triggers and the storm guard, the ladder, the KCP swap.
//   - BMMActionWorkflow — action:<cluster>:<bmm>:<n>, TroubleshootWorkflow —
//     troubleshoot:<cluster>:<bmm> — actions: operator actions on one BMM
//     and the escalation runbook.
//   - ReplaceRolesWorkflow — replace-roles:<cluster> — replaceroles.
//   - KeysetWorkflow — keyset:<cluster>:<name>, keyset-nodes:<cluster> —
//     keysets: a BMC keyset applied to every BMC of a cluster, or disabled
//     once deleted; the BMM keysets, all at once, applied to every node.
//   - kernel: what every BMM workflow is made of (activity steps on one
//     BMM, the site's time limits, the ledger client and the lease
//     prologue, the live control-plane gate, etcd membership, routing,
//     summaries).
//
// Direction: a family imports only kernel (and internal/, activities/);
// no family imports another or this package, and kernel imports no
// family. A workflow starts another by its type name from internal/api,
// never by its function. internal/archtest enforces this. Each package
// lists its workflow.GetVersion change IDs in its versions.go
// (docs/design.md#change-ids).
//
// Tests: unit tests run in the SDK's test environment beside the code, on
// the fake site of internal/wftest (test harness only). This package keeps
// the tests that span families: crossfamily_test.go and the convergence
// property tests (property_converge*_test.go) run workflows of several
// families on one fake site; replay_test.go and determinism_test.go replay
// the recorded histories in testdata/histories
// (docs/reliability.md#workflow-histories); versions_test.go checks the
// change IDs. The end-to-end tests that need the lab live under test/, set
// up by test/e2e.
package workflows
