package remediate

import (
	"slices"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestResume(t *testing.T) {
	const day = 24 * time.Hour
	mark := func(role model.Role, ago time.Duration, steps ...string) *model.LadderMark {
		return &model.LadderMark{Role: role, Steps: steps, At: t0.Add(-ago)}
	}
	for _, tc := range []struct {
		name string
		m    *model.LadderMark
		role model.Role
		want []Step // carried as tried
	}{
		{"never remediated", nil, model.RoleCompute, nil},
		{"compute recovered by reprovision an hour ago", mark(model.RoleCompute, time.Hour, "reprovision"), model.RoleCompute, []Step{Reprovision}},
		{"exactly at the window still counts", mark(model.RoleCompute, day, "reprovision"), model.RoleCompute, []Step{Reprovision}},
		{"past the window: afresh", mark(model.RoleCompute, day+time.Second, "reprovision"), model.RoleCompute, nil},
		{"management after its reboot", mark(model.RoleManagement, time.Hour, "reboot"), model.RoleManagement, []Step{Reboot}},
		{"management after both recoveries", mark(model.RoleManagement, time.Hour, "reboot", "reprovision"), model.RoleManagement,
			[]Step{Reboot, Reprovision}},
		{"kcp after its reboot", mark(model.RoleKCP, time.Minute, "reboot"), model.RoleKCP, []Step{Reboot}},
		{"a KCP relabelled management starts the management ladder", mark(model.RoleKCP, time.Minute, "reboot", "mark-unhealthy", "failover"),
			model.RoleManagement, nil},
		{"give-up steps are not carried", mark(model.RoleCompute, time.Minute, "reprovision", "mark-unhealthy", "power-off"),
			model.RoleCompute, []Step{Reprovision}},
		{"steps of another ladder and repeats are ignored", mark(model.RoleCompute, time.Minute, "reboot", "reprovision", "reprovision"),
			model.RoleCompute, []Step{Reprovision}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Resume(tc.m, tc.role, t0, day)
			var steps []Step
			for _, r := range got {
				assert.False(t, r.OK, "a carried step counts as failed: the server broke again")
				assert.Contains(t, r.Detail, "failed again within the damping window (24h0m0s)")
				steps = append(steps, r.Step)
			}
			assert.Equal(t, tc.want, steps)
		})
	}
}

// A server whose every recovery works but which breaks again an hour
// later climbs its ladder one rung per incident and ends marked Unhealthy:
// each remediation continues the last, never a loop.
func TestResumeNeverLoops(t *testing.T) {
	for _, role := range model.Roles {
		var m *model.LadderMark
		now := t0
		for incident := 1; ; incident++ {
			done := Resume(m, role, now, 24*time.Hour)
			for {
				next, finished, _ := Next(role, done)
				if finished {
					break
				}
				for _, s := range next {
					done = append(done, StepResult{Step: s, OK: true})
				}
			}
			mk := Mark(role, done, now)
			m = &mk
			if slices.Contains(m.Steps, string(MarkUnhealthy)) {
				assert.Equal(t, len(rungs(role)), incident, "%s: one incident per rung", role)
				break
			}
			require.Less(t, incident, 10, "%s loops: %v", role, m.Steps)
			now = now.Add(time.Hour)
		}
		assert.Equal(t, Ladder(role)[:len(m.Steps)], stepsOf(m.Steps), role)
	}
}

func stepsOf(ss []string) []Step {
	out := make([]Step, len(ss))
	for i, s := range ss {
		out[i] = Step(s)
	}
	return out
}

func TestMark(t *testing.T) {
	m := Mark(model.RoleManagement, []StepResult{fail(Reboot), ok(Reprovision), fail(Reboot)}, t0.In(time.FixedZone("x", 3600)))
	assert.Equal(t, model.LadderMark{Role: model.RoleManagement, Steps: []string{"reboot", "reprovision"}, At: t0}, m)
	assert.Equal(t, []string{}, Mark(model.RoleCompute, nil, t0).Steps)
}
