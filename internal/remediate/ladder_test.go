package remediate

import (
	"testing"

	"github.com/rackroll/rackroll/internal/model"
	"github.com/stretchr/testify/assert"
)

func TestLadder(t *testing.T) {
	assert.Equal(t, []Step{Reprovision, MarkUnhealthy, PowerOff}, Ladder(model.RoleCompute))
	assert.Equal(t, []Step{Reboot, Reprovision, MarkUnhealthy}, Ladder(model.RoleManagement))
	assert.Equal(t, []Step{Reboot, MarkUnhealthy, Failover}, Ladder(model.RoleKCP))
	assert.Equal(t, []Step{Reboot, MarkUnhealthy, Failover}, Ladder(model.RoleKCPSpare))
	assert.Empty(t, Ladder("storage"))
}

func ok(s Step) StepResult   { return StepResult{Step: s, OK: true} }
func fail(s Step) StepResult { return StepResult{Step: s} }

func TestNext(t *testing.T) {
	replaceIt := "; a BMM Replace action returns it to service"
	for _, tc := range []struct {
		name     string
		role     model.Role
		done     []StepResult
		next     []Step
		finished bool
		outcome  string
	}{
		// compute: one reprovision, then Unhealthy and powered off.
		{"compute starts", comp, nil, []Step{Reprovision}, false, "next: reprovision"},
		{"compute recovered", comp, []StepResult{ok(Reprovision)}, nil, true, "recovered by reprovision"},
		{"compute gives up", comp, []StepResult{fail(Reprovision)}, []Step{MarkUnhealthy, PowerOff}, false,
			"reprovision failed; next: mark-unhealthy + power-off"},
		{"compute half given up", comp, []StepResult{fail(Reprovision), ok(MarkUnhealthy)}, []Step{PowerOff}, false,
			"reprovision failed; next: power-off"},
		{"compute done", comp, []StepResult{fail(Reprovision), ok(MarkUnhealthy), ok(PowerOff)}, nil, true,
			"reprovision failed; marked Unhealthy; powered off" + replaceIt},
		{"compute power-off failed: not retried", comp,
			[]StepResult{fail(Reprovision), ok(MarkUnhealthy), {Step: PowerOff, Detail: "BMC unreachable"}}, nil, true,
			"reprovision failed; marked Unhealthy; power-off failed: BMC unreachable" + replaceIt},
		// management: one reboot, one reprovision, then Unhealthy.
		{"management starts", mgmt, nil, []Step{Reboot}, false, "next: reboot"},
		{"management recovered by reboot", mgmt, []StepResult{ok(Reboot)}, nil, true, "recovered by reboot"},
		{"management reboot failed", mgmt, []StepResult{fail(Reboot)}, []Step{Reprovision}, false, "reboot failed; next: reprovision"},
		{"management recovered by reprovision", mgmt, []StepResult{fail(Reboot), ok(Reprovision)}, nil, true, "recovered by reprovision"},
		{"management gives up", mgmt, []StepResult{fail(Reboot), fail(Reprovision)}, []Step{MarkUnhealthy}, false,
			"reboot and reprovision failed; next: mark-unhealthy"},
		{"management done", mgmt, []StepResult{fail(Reboot), fail(Reprovision), ok(MarkUnhealthy)}, nil, true,
			"reboot and reprovision failed; marked Unhealthy" + replaceIt},
		// KCP: one reboot, then Unhealthy and failover.
		{"kcp starts", kcp, nil, []Step{Reboot}, false, "next: reboot"},
		{"kcp recovered", kcp, []StepResult{ok(Reboot)}, nil, true, "recovered by reboot"},
		{"kcp gives up", kcp, []StepResult{fail(Reboot)}, []Step{MarkUnhealthy, Failover}, false,
			"reboot failed; next: mark-unhealthy + failover"},
		{"kcp failed over", kcp, []StepResult{fail(Reboot), ok(MarkUnhealthy), ok(Failover)}, nil, true,
			"reboot failed; marked Unhealthy; failed over to the spare" + replaceIt},
		{"kcp failed over to a stand-in", kcp, []StepResult{fail(Reboot), ok(MarkUnhealthy), {Step: Failover, OK: true, Detail: "rack1-mgmt4, a management server standing in"}}, nil, true,
			"reboot failed; marked Unhealthy; failed over to rack1-mgmt4, a management server standing in" + replaceIt},
		{"kcp without a spare", kcp, []StepResult{fail(Reboot), ok(MarkUnhealthy), {Step: Failover, Detail: "no spare"}}, nil, true,
			"reboot failed; marked Unhealthy; failover failed: no spare" + replaceIt},
		{"spare replaced", spare, []StepResult{fail(Reboot), ok(MarkUnhealthy), ok(Failover)}, nil, true,
			"reboot failed; marked Unhealthy; a management server became the new spare" + replaceIt},
		// Never a step twice; stray results change nothing.
		{"repeated results: the first counts", mgmt, []StepResult{fail(Reboot), ok(Reboot)}, []Step{Reprovision}, false,
			"reboot failed; next: reprovision"},
		{"steps outside the ladder are ignored", comp, []StepResult{ok(Reboot)}, []Step{Reprovision}, false, "next: reprovision"},
		{"unknown role", "storage", nil, nil, true, `no remediation ladder for role "storage"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			next, finished, outcome := Next(tc.role, tc.done)
			assert.Equal(t, tc.next, next)
			assert.Equal(t, tc.finished, finished)
			assert.Equal(t, tc.outcome, outcome)
		})
	}
}

// Driving any ladder with every step failing ends after each step ran
// exactly once: no infinite retries.
func TestNextTerminates(t *testing.T) {
	for _, role := range model.Roles {
		var done []StepResult
		for range 10 {
			next, finished, _ := Next(role, done)
			if finished {
				break
			}
			for _, s := range next {
				done = append(done, fail(s))
			}
		}
		_, finished, _ := Next(role, done)
		assert.True(t, finished, role)
		var ran []Step
		for _, r := range done {
			ran = append(ran, r.Step)
		}
		assert.Equal(t, Ladder(role), ran, role)
	}
}
