package upgrade

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"
)

// An image that does not answer refuses the upgrade in its preflight,
// naming the URL and the answer, before any server is touched; the
// cluster stays as it was.
func TestUpgradeRefusedWhenTheImageIsMissing(t *testing.T) {
	f, env := wftest.SiteEnv(t, wftest.Example("two-rack.yaml"))
	url := "http://images.rackroll.local/rackroll-4.2.0.iso"
	f.MissingImages[url] = true

	env.ExecuteWorkflow(RuntimeUpgradeWorkflow, wftest.UpgradeInput(model.UpdateStrategy{}))
	err := env.GetWorkflowError()
	require.Error(t, err)
	for _, want := range []string{"preflight", url, "404 Not Found", "no server was touched"} {
		require.ErrorContains(t, err, want)
	}
	require.Equal(t, []string{url}, urlsOf(f), "asked once, for the target's image")
	require.Empty(t, f.Reimages)
	require.Empty(t, f.Cordoned)
	require.Empty(t, f.St.Leases)
	require.Equal(t, model.ClusterRunning, f.St.Cluster.DetailedStatus, "the cluster is left as it was")
	require.Empty(t, f.St.UpgradeTarget)
}

// A present image lets the upgrade go on, and its status says what the
// image server answered; the checksum the inventory gives is asked for.
func TestUpgradeRecordsTheImageCheck(t *testing.T) {
	env := wftest.NewEnv()
	f := wftest.NewFakeSite(t, wftest.Example("two-rack.yaml"))
	f.St.ImageSHA256 = map[string]string{"4.2.0": "ab12"}
	f.Register(env)

	env.ExecuteWorkflow(RuntimeUpgradeWorkflow, wftest.UpgradeInput(model.UpdateStrategy{}))
	require.NoError(t, env.GetWorkflowError())
	var st api.UpgradeStatus
	require.NoError(t, env.GetWorkflowResult(&st))
	require.NotNil(t, st.Image)
	require.True(t, st.Image.OK)
	require.Equal(t, "200 OK, 1024 bytes", st.Image.Answer)
	require.Len(t, f.ImageChecks, 1)
	require.Equal(t, "ab12", f.ImageChecks[0].SHA256)
}

func urlsOf(f *wftest.FakeSite) []string {
	var out []string
	for _, c := range f.ImageChecks {
		out = append(out, c.URL)
	}
	return out
}

// onFirstPause checks the upgrade's status every simulated minute; at its
// first pause it calls at, then continues the upgrade.
func onFirstPause(t *testing.T, env *testsuite.TestWorkflowEnvironment, at func(api.UpgradeStatus)) *wftest.UpdateResult {
	var cont wftest.UpdateResult
	seen := false
	wftest.EachPause(t, env, 12*60, func(st api.UpgradeStatus) {
		if !seen {
			seen = true
			at(st)
			wftest.SendUpdate(env, api.UpdateContinue, "go-on", &cont, nil)
		}
	})
	return &cont
}

// The first two computes fail at the same step: the upgrade pauses after
// them, whatever its threshold (0 % here), before any other compute is
// reimaged, saying why; continue-update goes on with the rest.
func TestSystemicFailurePausesAfterTheCanary(t *testing.T) {
	f, env := wftest.SiteEnv(t, wftest.Example("two-rack.yaml"))
	f.Failing["rack1-c1"], f.Failing["rack1-c2"] = "the installer found no disk", "the installer found no disk"
	var paused *api.UpgradeStatus
	var atPause []string
	cont := onFirstPause(t, env, func(st api.UpgradeStatus) { paused, atPause = &st, reimagesIn(f, "") })
	lenient := model.UpdateStrategy{ThresholdType: model.ThresholdPercentSuccess, ThresholdValue: 0, WaitTimeMinutes: wftest.Intp(0)}
	env.ExecuteWorkflow(RuntimeUpgradeWorkflow, wftest.UpgradeInput(lenient))
	require.NoError(t, env.GetWorkflowError())

	require.NotNil(t, paused, "the upgrade paused")
	require.ElementsMatch(t, []string{"rack1-c1", "rack1-c2"}, atPause, "no other compute was reimaged before the operator's word")
	for _, want := range []string{"rack1-c1, rack1-c2", "the same step, reimage", "systemic"} {
		require.Contains(t, paused.DetailedStatusMessage, want)
	}
	require.Equal(t, api.StatePaused, paused.Racks[0].State)
	require.Contains(t, paused.Guards(), "canary: "+paused.DetailedStatusMessage)
	require.NoError(t, cont.Rejected)
	require.True(t, cont.Done)

	var st api.UpgradeStatus
	require.NoError(t, env.GetWorkflowResult(&st))
	require.Equal(t, model.ClusterRunning, st.DetailedStatus, st.DetailedStatusMessage)
	require.Greater(t, len(reimagesIn(f, "")), 2, "continue went on with the rest")
	require.NotNil(t, st.Racks[0].ContinuedAt, "the operator's word is on record")
	require.Equal(t, "reimage", st.Racks[0].Servers[0].Step)
}

// One canary server failing is no pattern: no pause, and the canary's
// rack and the next one run on.
func TestOneCanaryFailureDoesNotPause(t *testing.T) {
	f, env := wftest.SiteEnv(t, wftest.Example("two-rack.yaml"))
	f.Failing["rack1-c1"] = "the installer found no disk"
	lenient := model.UpdateStrategy{ThresholdType: model.ThresholdPercentSuccess, ThresholdValue: 0, WaitTimeMinutes: wftest.Intp(0)}
	env.ExecuteWorkflow(RuntimeUpgradeWorkflow, wftest.UpgradeInput(lenient))
	require.NoError(t, env.GetWorkflowError())
	var st api.UpgradeStatus
	require.NoError(t, env.GetWorkflowResult(&st))
	require.Equal(t, model.ClusterRunning, st.DetailedStatus)
	require.Nil(t, st.Racks[0].ContinuedAt, "never paused")
	require.Contains(t, st.Canary, "rack1-c2 succeeded")
	require.Equal(t, 1, st.Racks[0].Failed)
}

// Preflight refusals happen before any side effect.
func TestPreflightRefusesWithoutSideEffects(t *testing.T) {
	for _, tc := range []struct {
		name, version string
		strategy      model.UpdateStrategy
		want          string
	}{
		{"minor skip", "4.3.0", model.UpdateStrategy{}, "skips minor release 4.2"},
		{"same version", "4.1.2", model.UpdateStrategy{}, "4.1.2"},
		{"downgrade", "4.0.1", model.UpdateStrategy{}, "4.0.1"},
		{"count above rack size", "4.2.0", model.UpdateStrategy{ThresholdType: model.ThresholdCountSuccess, ThresholdValue: 9}, "has only 8 compute servers"},
		{"wait out of range", "4.2.0", model.UpdateStrategy{WaitTimeMinutes: wftest.Intp(90)}, "waitTimeMinutes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, env := wftest.SiteEnv(t, wftest.Example("four-rack.yaml"))
			in := wftest.UpgradeInput(tc.strategy)
			in.TargetVersion = tc.version
			env.ExecuteWorkflow(RuntimeUpgradeWorkflow, in)
			err := env.GetWorkflowError()
			require.Error(t, err)
			require.Contains(t, err.Error(), tc.want)
			require.Empty(t, f.Reimages)
			require.Equal(t, model.ClusterRunning, f.St.Cluster.DetailedStatus, "cluster untouched")
			require.Empty(t, f.St.UpgradeTarget)
		})
	}
}

// capacityPolicy Pause: rack2's pods have no room elsewhere, so the
// upgrade pauses before draining it, naming the rack, the shortfall and
// the pods; continue-update drains it anyway.
func TestCapacityPausePausesBeforeTheDrain(t *testing.T) {
	f, env := wftest.SiteEnv(t, wftest.Example("two-rack.yaml"))
	f.NoRoom[f.Bmm("rack2-c1").NodeName] = true
	var paused *api.UpgradeStatus
	var rack2AtPause int
	cont := onFirstPause(t, env, func(st api.UpgradeStatus) { paused, rack2AtPause = &st, len(reimagesIn(f, "rack2")) })
	env.ExecuteWorkflow(RuntimeUpgradeWorkflow, wftest.UpgradeInput(model.UpdateStrategy{WaitTimeMinutes: wftest.Intp(0), CapacityPolicy: model.CapacityPause}))
	require.NoError(t, env.GetWorkflowError())

	require.NotNil(t, paused)
	require.Zero(t, rack2AtPause, "paused before rack2 was drained")
	for _, want := range []string{"rack2", "short by 40.0 CPU", "tenant/app-" + f.Bmm("rack2-c1").NodeName + "-0", "continue-update"} {
		require.Contains(t, paused.DetailedStatusMessage, want)
	}
	require.Equal(t, api.StatePaused, paused.Racks[1].State)
	require.Empty(t, paused.Racks[1].Running(), "none of rack2's servers is in flight while it waits")
	require.True(t, cont.Done)
	require.NoError(t, cont.Rejected)
	var st api.UpgradeStatus
	require.NoError(t, env.GetWorkflowResult(&st))
	require.Equal(t, model.ClusterRunning, st.DetailedStatus, st.DetailedStatusMessage)
	require.Positive(t, len(reimagesIn(f, "rack2")), "continued: drained and upgraded")
	held := st.Capacity[len(st.Capacity)-1]
	require.Equal(t, "rack2", held.Unit)
	require.True(t, held.Held, "the status says the guard held rack2")
	require.Equal(t, st.Racks[1].ContinuedAt, held.ContinuedAt, "and when the operator let it go")
}

// capacityPolicy Warn (the default): the upgrade proceeds, and its status
// names the pods that will be left Pending — of rack2's first wave, or of
// a server it starts after it (a batch of its own); every batch was
// checked, and those that fit add nothing but their line.
func TestCapacityWarnProceedsAndNamesThePods(t *testing.T) {
	rack1 := [][]string{{"rack1-mgmt2"}, {"rack2-mgmt2"}, {"rack1-c1", "rack1-c2"}, {"rack1-c3", "rack1-c4"}}
	for _, c := range []struct {
		server, unit   string
		maxUnavailable int
		rack2Batches   [][]string
	}{
		{"rack2-c1", "rack2", 0, [][]string{{"rack2-c1", "rack2-c2", "rack2-c3", "rack2-c4"}}},
		{"rack2-c3", "rack2 rack2-c3", 2, [][]string{{"rack2-c1", "rack2-c2"}, {"rack2-c3"}, {"rack2-c4"}}},
	} {
		t.Run(c.unit, func(t *testing.T) {
			f, env := wftest.SiteEnv(t, wftest.Example("two-rack.yaml"))
			f.NoRoom[f.Bmm(c.server).NodeName] = true
			env.ExecuteWorkflow(RuntimeUpgradeWorkflow, wftest.UpgradeInput(model.UpdateStrategy{MaxUnavailable: c.maxUnavailable, WaitTimeMinutes: wftest.Intp(0)}))
			require.NoError(t, env.GetWorkflowError())
			var st api.UpgradeStatus
			require.NoError(t, env.GetWorkflowResult(&st))
			require.Equal(t, model.ClusterRunning, st.DetailedStatus)
			short := shortfalls(st)
			require.Len(t, short, 1, "%+v", st.Capacity)
			require.Equal(t, c.unit, short[0].Unit)
			require.Equal(t, []string{"tenant/app-" + f.Bmm(c.server).NodeName + "-0"}, short[0].Pending)
			require.Contains(t, strings.Join(st.Guards(), "\n"), "capacity SHORT: "+c.unit+":")
			var want [][]string
			for _, batch := range append(rack1, c.rack2Batches...) {
				var nodes []string
				for _, s := range batch {
					nodes = append(nodes, f.Bmm(s).NodeName)
				}
				want = append(want, nodes)
			}
			require.Equal(t, want, f.CapacityChecks)
		})
	}
}

// A capacity guard that cannot read the cluster says so. Under Warn the
// upgrade goes on; under Pause every batch it could not judge waits for
// the operator before its drain, saying why (issue 34).
func TestCapacityNotChecked(t *testing.T) {
	const forbidden = `pods is forbidden: cannot list resource "pods"`
	t.Run("Warn goes on", func(t *testing.T) {
		f, env := wftest.SiteEnv(t, wftest.Example("two-rack.yaml"))
		f.Fail["CheckCapacity"] = forbidden
		env.ExecuteWorkflow(RuntimeUpgradeWorkflow, wftest.UpgradeInput(model.UpdateStrategy{WaitTimeMinutes: wftest.Intp(0), CapacityPolicy: model.CapacityWarn}))
		require.NoError(t, env.GetWorkflowError())
		var st api.UpgradeStatus
		require.NoError(t, env.GetWorkflowResult(&st))
		require.Equal(t, model.ClusterRunning, st.DetailedStatus, st.DetailedStatusMessage)
		require.Len(t, st.Capacity, len(f.CapacityChecks), "every batch's check is in the status, once")
		for _, c := range st.Capacity {
			require.True(t, c.NotChecked, "%+v", c)
			require.False(t, c.Held, "%+v", c)
			require.Contains(t, c.Message, "capacity not checked: pods is forbidden")
		}
		require.Contains(t, strings.Join(st.Guards(), "\n"), "capacity NOT CHECKED: rack2: capacity not checked")
	})
	t.Run("Pause holds", func(t *testing.T) {
		f, env := wftest.SiteEnv(t, wftest.Example("two-rack.yaml"))
		f.Fail["CheckCapacity"] = forbidden
		var pauses []string
		var drainedAtFirst int
		conts := map[int]*wftest.UpdateResult{}
		wftest.EachPause(t, env, 12*60, func(st api.UpgradeStatus) {
			if len(pauses) == 0 {
				drainedAtFirst = len(reimagesIn(f, ""))
			}
			if len(pauses) > 0 && pauses[len(pauses)-1] == st.DetailedStatusMessage && !conts[len(pauses)-1].Done {
				return // the last word not yet heard
			}
			pauses = append(pauses, st.DetailedStatusMessage)
			conts[len(pauses)-1] = &wftest.UpdateResult{}
			wftest.SendUpdate(env, api.UpdateContinue, fmt.Sprint("go-on-", len(pauses)), conts[len(pauses)-1], nil)
		})
		env.ExecuteWorkflow(RuntimeUpgradeWorkflow, wftest.UpgradeInput(model.UpdateStrategy{WaitTimeMinutes: wftest.Intp(0), CapacityPolicy: model.CapacityPause}))
		require.NoError(t, env.GetWorkflowError())
		var st api.UpgradeStatus
		require.NoError(t, env.GetWorkflowResult(&st))
		require.Equal(t, model.ClusterRunning, st.DetailedStatus, st.DetailedStatusMessage)
		require.Zero(t, drainedAtFirst, "nothing was reimaged before the first batch's hold")
		require.Len(t, pauses, len(f.CapacityChecks), "each unjudged batch waited for the operator")
		for _, msg := range pauses {
			for _, want := range []string{"capacityPolicy Pause and the guard could not read the cluster", "pods is forbidden", "continue-update"} {
				require.Contains(t, msg, want)
			}
		}
		for _, c := range st.Capacity {
			require.True(t, c.NotChecked && c.Held && c.ContinuedAt != nil, "%+v", c)
		}
	})
}

// A server after its rack's first wave is a batch of its own: rack2's
// first wave (c1, c2) fits, rack2-c3's pods do not. Under Pause the rack
// finishes its first wave, starts nothing more and the upgrade pauses
// naming rack2-c3; continue-update runs the servers kept back.
func TestCapacityPauseHoldsALaterServer(t *testing.T) {
	f, env := wftest.SiteEnv(t, wftest.Example("two-rack.yaml"))
	f.NoRoom[f.Bmm("rack2-c3").NodeName] = true
	var paused *api.UpgradeStatus
	var atPause []string
	cont := onFirstPause(t, env, func(st api.UpgradeStatus) { paused, atPause = &st, reimagesIn(f, "rack2") })
	env.ExecuteWorkflow(RuntimeUpgradeWorkflow, wftest.UpgradeInput(model.UpdateStrategy{MaxUnavailable: 2, WaitTimeMinutes: wftest.Intp(0),
		CapacityPolicy: model.CapacityPause}))
	require.NoError(t, env.GetWorkflowError())

	require.NotNil(t, paused)
	require.ElementsMatch(t, []string{"rack2-c1", "rack2-c2"}, atPause, "the first wave ran, nothing after it")
	require.Contains(t, paused.DetailedStatusMessage, "rack2 rack2-c3")
	require.Contains(t, paused.DetailedStatusMessage, "tenant/app-"+f.Bmm("rack2-c3").NodeName+"-0")
	require.Empty(t, paused.Racks[1].Running())
	require.True(t, cont.Done)
	require.NoError(t, cont.Rejected)

	var st api.UpgradeStatus
	require.NoError(t, env.GetWorkflowResult(&st))
	require.Equal(t, model.ClusterRunning, st.DetailedStatus, st.DetailedStatusMessage)
	require.Equal(t, 4, st.Racks[1].Succeeded, "continued: the servers kept back ran")
	require.Len(t, reimagesIn(f, "rack2"), 4, "each once")
	i := slices.IndexFunc(st.Capacity, func(c api.CapacityCheck) bool { return c.Held })
	require.GreaterOrEqual(t, i, 0, "%+v", st.Capacity)
	require.Equal(t, "rack2 rack2-c3", st.Capacity[i].Unit)
	require.Equal(t, []string{"rack2-c3", "rack2-c4"}, st.Capacity[i].Servers)
	require.NotNil(t, st.Capacity[i].ContinuedAt)
}

// shortfalls are the capacity checks that found the batch does not fit.
func shortfalls(st api.UpgradeStatus) []api.CapacityCheck {
	var out []api.CapacityCheck
	for _, c := range st.Capacity {
		if !c.Fits {
			out = append(out, c)
		}
	}
	return out
}

// reimagesIn are the compute servers reimaged so far, of rack ("": all).
func reimagesIn(f *wftest.FakeSite, rack string) []string {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	var out []string
	for _, b := range f.Reimages {
		if (rack == "" || f.Bmm(b).Rack == rack) && f.Bmm(b).HasRole(model.RoleCompute) {
			out = append(out, b)
		}
	}
	return out
}
