package upgrade

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/upgradeplan"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/rackroll/rackroll/workflows/kernel"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/workflow"
)

// A child's run limit is derived from the table: a rack of n servers, p at
// a time, each at most S, ends by ⌈n/p⌉·S.

func withReimage(d time.Duration) api.ServerInput {
	t := model.DefaultTimeouts()
	t.Reimage = model.Duration(d)
	return api.ServerInput{Limits: &t}
}

func TestServerRunLimitIsTheSumOfItsSteps(t *testing.T) {
	in := withReimage(90 * time.Minute)
	d := model.DefaultTimeouts()
	steps := d.RemediationWait.Std() + d.Drain.Std() + d.VMShutdown.Std() + d.Firmware.Std() + 90*time.Minute + d.Media.Std() + d.EtcdJoin.Std()
	require.Greater(t, serverRunLimit(in), steps, "every step at its limit, and the calls around them")
	fw := in
	fwt := *in.Limits
	fwt.Firmware = model.Duration(3 * time.Hour)
	fw.Limits = &fwt
	require.Equal(t, 2*time.Hour, serverRunLimit(fw)-serverRunLimit(in), "the firmware row counts")
	longer := in
	longer.DrainTimeout = time.Hour
	require.Equal(t, 40*time.Minute, serverRunLimit(longer)-serverRunLimit(in), "the upgrade's --drain-timeout counts")
	require.Greater(t, serverRunLimit(withReimage(3*time.Hour)), serverRunLimit(in), "a longer reimage, a longer run")
}

func TestRackRunLimitCountsItsWaves(t *testing.T) {
	in := withReimage(90 * time.Minute)
	s, call := serverRunLimit(in), kernel.CallBound(*in.Limits)
	for _, tc := range []struct{ n, parallel, waves, checks int }{
		{16, 1, 16, 16}, {16, 4, 4, 13}, {17, 4, 5, 14}, {3, 5, 1, 1}, {5, 0, 5, 5},
	} {
		want := time.Duration(tc.waves)*s + time.Duration(tc.checks)*call
		require.Equal(t, want, rackRunLimit(tc.n, tc.parallel, in), "%d servers, %d at a time", tc.n, tc.parallel)
	}
	require.Greater(t, rackRunLimit(16, 1, in), 16*(90*time.Minute), "sixteen reimages one after another fit")
	require.Equal(t, legacyRunLimit, runLimit(rackRun(upgradeRack(16, 1), api.ServerInput{})), "a run started before the table: 24 h")
}

func upgradeRack(n, parallel int) upgradeplan.Rack {
	r := upgradeplan.Rack{Parallel: parallel}
	for i := range n {
		r.Servers = append(r.Servers, fmt.Sprintf("s%d", i))
	}
	return r
}

// sixteenComputes is one rack: three management servers and 16 computes.
func sixteenComputes(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("cluster: site-a\nruntimeVersion: 4.1.2\nbmcCredentials:\n  default: {usernameEnv: U, passwordEnv: P}\nracks:\n  - name: rack1\n    servers:\n")
	server := func(name, role string, i int) {
		fmt.Fprintf(&b, "      - name: %s\n        role: %s\n        bmc: {address: \"https://10.0.1.%d\", credentials: default}\n", name, role, i)
		fmt.Fprintf(&b, "        bootMACAddress: \"52:54:00:01:00:%02x\"\n        serialNumber: \"SN-%d\"\n", i, i)
	}
	for i := 1; i <= 3; i++ {
		server(fmt.Sprintf("rack1-mgmt%d", i), "management", i)
	}
	for i := 1; i <= 16; i++ {
		server(fmt.Sprintf("rack1-c%d", i), "compute", 20+i)
	}
	path := filepath.Join(t.TempDir(), "sixteen.yaml")
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o600))
	return path
}

// sixteenAtATime upgrades the rack one compute at a time, each taking most
// of a 90 min reimage limit; legacy runs it as histories recorded before
// the table bounded the children did.
func sixteenAtATime(t *testing.T, legacy bool) (api.UpgradeStatus, *wftest.FakeSite, error) {
	f, env := wftest.SiteEnv(t, sixteenComputes(t))
	f.St.Timeouts = model.DefaultTimeouts()
	f.St.Timeouts.Reimage = model.Duration(90 * time.Minute)
	f.Delay["Drain"] = 10 * time.Minute
	f.Delay["WaitNodeReady"] = 85 * time.Minute // a real install: 60–90 min
	if legacy {
		env.OnGetVersion(kernel.ChangeTableBounds, workflow.DefaultVersion, 1).Return(workflow.DefaultVersion)
	}
	env.ExecuteWorkflow(RuntimeUpgradeWorkflow, wftest.UpgradeInput(model.UpdateStrategy{MaxUnavailable: 1, SystemicFailures: wftest.Intp(0)}))
	var st api.UpgradeStatus
	if err := env.GetWorkflowError(); err != nil {
		return st, f, err
	}
	require.NoError(t, env.GetWorkflowResult(&st))
	return st, f, nil
}

// Issue 34: a rack of 16 computes at maxUnavailable 1 with real installs
// passes 24 h, and a fixed 24 h run limit killed it mid-install.
func TestSixteenComputesOneAtATimeAreNotKilledByARunLimit(t *testing.T) {
	st, f, err := sixteenAtATime(t, false)
	require.NoError(t, err)
	require.Equal(t, model.ClusterRunning, st.DetailedStatus, st.DetailedStatusMessage)
	require.Len(t, st.Racks, 1)
	rack := st.Racks[0]
	require.Equal(t, api.StateSucceeded, rack.State, rack.Servers)
	require.Greater(t, rack.FinishedAt.Sub(*rack.StartedAt), 24*time.Hour, "the rack outlived the old 24 h limit")
	for i := 1; i <= 16; i++ {
		require.Equal(t, "4.2.0", f.LedgerBMM(fmt.Sprintf("rack1-c%d", i)).RuntimeVersion)
	}

	// The same run as before the table: killed at 24 h.
	_, _, err = sixteenAtATime(t, true)
	require.Error(t, err, "the constant 24 h run limit kills the rack")
	require.Contains(t, err.Error(), "RackUpgradeWorkflow", "the rack child")
	require.Contains(t, err.Error(), "deadline exceeded", "ended by its run limit")
}
