// Package actions is the operator's actions on one BMM:
// BMMActionWorkflow (action:<cluster>:<bmm>:<n>: action.go with limits,
// lease and dispatch, action_power.go, action_reimage.go,
// action_firmware.go (the replace's firmware check), action_cordon.go) and TroubleshootWorkflow
// (troubleshoot:<cluster>:<bmm>: troubleshoot.go, troubleshoot_ladder.go
// with the runbook per problem, starting actions by name). versions.go
// lists the change IDs.
package actions
