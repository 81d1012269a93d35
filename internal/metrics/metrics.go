// Package metrics names rackroll's own metrics and records them through the
// Temporal SDK's metrics handler, so they reach the same exporter as the
// SDK's metrics (the worker's Prometheus endpoint, see package prom).
//
// Workflows record with workflow.GetMetricsHandler(ctx), which drops what a
// replay would emit again, so a counter counts each outcome once. Recording
// a metric issues no workflow command: no workflow.GetVersion is needed.
// Tags stay low in cardinality (cluster, outcome, role, operation): never a
// BMM name or a free-text message.
package metrics

import "go.temporal.io/sdk/client"

// Metric names as registered with the SDK; Prometheus shows counters with a
// _total suffix (rackroll_servers_upgraded_total).
const (
	ServersUpgraded = "rackroll_servers_upgraded"
	RackUpgrades    = "rackroll_rack_upgrades"
	Remediations    = "rackroll_remediations"
	LeaseRejections = "rackroll_lease_rejections"
)

// Tag keys.
const (
	TagCluster   = "cluster"
	TagOutcome   = "outcome"
	TagRole      = "role"
	TagOperation = "operation"
)

// Outcome values.
const (
	Succeeded       = "succeeded"
	Failed          = "failed"
	ThresholdMet    = "threshold_met"
	ThresholdMissed = "threshold_missed"
	Recovered       = "recovered"
	NotRecovered    = "not_recovered"
	Refused         = "refused"
)

func inc(h client.MetricsHandler, name string, tags map[string]string) {
	if h == nil {
		return
	}
	h.WithTags(tags).Counter(name).Inc(1)
}

// ServerUpgraded counts one ServerUpgradeWorkflow's end.
func ServerUpgraded(h client.MetricsHandler, cluster string, ok bool) {
	inc(h, ServersUpgraded, map[string]string{TagCluster: cluster, TagOutcome: pick(ok, Succeeded, Failed)})
}

// RackUpgraded counts one compute rack's end against its threshold.
func RackUpgraded(h client.MetricsHandler, cluster string, thresholdMet bool) {
	inc(h, RackUpgrades, map[string]string{TagCluster: cluster, TagOutcome: pick(thresholdMet, ThresholdMet, ThresholdMissed)})
}

// Remediated counts one RemediationWorkflow's end: refused (it never
// started a step), recovered, or not recovered (the ladder gave up).
func Remediated(h client.MetricsHandler, cluster, role string, refused, recovered bool) {
	outcome := pick(recovered, Recovered, NotRecovered)
	if refused {
		outcome = Refused
	}
	inc(h, Remediations, map[string]string{TagCluster: cluster, TagRole: role, TagOutcome: outcome})
}

// LeaseRejected counts a disruption lease the ledger refused.
func LeaseRejected(h client.MetricsHandler, cluster, operation string) {
	inc(h, LeaseRejections, map[string]string{TagCluster: cluster, TagOperation: operation})
}

func pick(b bool, yes, no string) string {
	if b {
		return yes
	}
	return no
}
