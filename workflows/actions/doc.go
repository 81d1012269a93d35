// Package actions is the operator's actions on one BMM:
// BMMActionWorkflow (action:<cluster>:<bmm>:<n>: action.go with limits,
// lease and dispatch, power.go, reimage.go,
// firmware.go (the replace's firmware check), cordon.go) and TroubleshootWorkflow
// (troubleshoot:<cluster>:<bmm>: troubleshoot.go, troubleshoot_ladder.go
// with the runbook per problem, starting actions by name). versions.go
// lists the change IDs.
package actions
