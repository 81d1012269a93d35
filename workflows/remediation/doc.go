// Package remediation is the automatic repair of a site:
// HealthMonitorWorkflow (monitor:<cluster>) watches the triggers, admits
// remediations under the storm guard and writes node health to the
// ledger; RemediationWorkflow (remediate:<cluster>:<bmm>) climbs one BMM's
// ladder; KCPFailoverWorkflow (failover:<cluster>) swaps a failed KCP for
// the spare. The monitor starts a remediation, and a remediation a
// failover, by its name in internal/api (docs/remediation.md).
package remediation
