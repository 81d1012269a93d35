// Package remediation is the automatic repair of a site:
// HealthMonitorWorkflow (monitor:<cluster>: monitor.go, monitor_round.go
// with triggers, admission and the storm guard, monitor_record.go with node
// health written to the ledger), RemediationWorkflow
// (remediate:<cluster>:<bmm>: remediation.go, ladder.go) and
// KCPFailoverWorkflow (failover:<cluster>: failover.go, failover_gate.go,
// failover_nospare.go, failover_resume.go, failover_fallback.go). The
// monitor starts a remediation, and a remediation a failover, by its name
// in internal/api. versions.go lists the change IDs.
package remediation
