package actions

import (
	"github.com/rackroll/rackroll/internal/api"
)

// TroubleshootLadder is the escalation runbook (docs/behaviour.md#troubleshooting): the actions to try
// for a problem, least invasive first. After the last one: contact support.
func TroubleshootLadder(problem string) []string {
	switch problem {
	case api.ProblemUnresponsive:
		return []string{api.ActionRestart, api.ActionReimage, api.ActionReplace}
	case api.ProblemOSCorruption, api.ProblemSecurity:
		return []string{api.ActionReimage, api.ActionReplace}
	case api.ProblemHardware:
		return []string{api.ActionReplace}
	}
	return nil
}
