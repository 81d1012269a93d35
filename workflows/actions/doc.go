// Package actions is the operator's actions on one BMM: BMMActionWorkflow
// (action:<cluster>:<bmm>:<n>) runs one restart, power-off, start,
// reimage, replace (with its firmware check), cordon or uncordon within
// its time limit and under a disruption lease; TroubleshootWorkflow
// (troubleshoot:<cluster>:<bmm>) is the escalation runbook for a problem,
// starting those actions by their name in internal/api
// (docs/actions.md, docs/behaviour.md#troubleshooting).
package actions
