package actions

import (
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/require"
)

func TestActionsEndWithinTheSiteLimits(t *testing.T) {
	for _, tc := range []struct {
		action, activity string
		limits           model.TimeoutsSpec
		limit            time.Duration
	}{
		{api.ActionRestart, "Restart", model.TimeoutsSpec{Restart: wftest.LimitOf(45 * time.Second)}, 45 * time.Second},
		{api.ActionStart, "PowerOn", model.TimeoutsSpec{Start: wftest.LimitOf(35 * time.Second)}, 35 * time.Second},
		{api.ActionPowerOff, "PowerOff", model.TimeoutsSpec{PowerOff: wftest.LimitOf(25 * time.Second)}, 25 * time.Second},
		{api.ActionReimage, "Reimage", model.TimeoutsSpec{Reimage: wftest.LimitOf(2 * time.Minute)}, 2 * time.Minute},
		{api.ActionReplace, "Reimage", model.TimeoutsSpec{Replace: wftest.LimitOf(3 * time.Minute)}, 3 * time.Minute},
	} {
		t.Run(tc.action, func(t *testing.T) {
			s := wftest.NewActionSite(t)
			s.St.Timeouts = tc.limits.Resolve()
			s.Delay[tc.activity] = wftest.Hung
			in := wftest.Act(tc.action, wftest.Compute)
			if tc.action == api.ActionReplace {
				in.ReplaceParams = api.ReplaceParams{SafeguardMode: api.SafeguardNone}
			}
			env := s.Env(t, api.ActionID("site-a", wftest.Compute, 1))
			start := env.Now()
			env.ExecuteWorkflow(BMMActionWorkflow, in)
			err := env.GetWorkflowError()
			require.Error(t, err)
			require.LessOrEqual(t, env.Now().Sub(start), tc.limit+wftest.Slack)
			require.Contains(t, err.Error(), tc.action+" of rack1-c1")
			require.Contains(t, err.Error(), "(timeouts."+map[string]string{api.ActionStart: "start", api.ActionPowerOff: "powerOff"}[tc.action])
			require.Empty(t, s.Leases())
		})
	}
}
