package upgrade_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/invariants"
	"github.com/rackroll/rackroll/internal/lab"
	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/lab/redfish/redfishtest"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/stretchr/testify/require"
)

// Issue 35, end to end: BMCs that allow four sessions and take a while
// per media action (idrac9-slow, its 20–40 s scaled to 0.5–1 s). An
// upgrade at maxUnavailable 4 — a rack's computes four at a time —
// completes while another tool holds all four of rack1-c1's sessions
// until that BMC has refused rackroll one (the step waits for a place);
// every step logs out what it opened, so the lab's session count is 0 at
// the end.
func TestE2EUpgradeOnSlowSessionCappedBMCs(t *testing.T) {
	t.Parallel()
	timings := lab.FastTimings()
	timings.Media = model.Duration(500 * time.Millisecond)
	env := e2e.Start(t, "../../examples/two-rack.yaml", e2e.Options{Timings: timings, Mutate: func(inv *model.Inventory) {
		inv.Lab = []byte(`{"bmcProfile": "idrac9-slow"}`)
	}})
	for _, m := range env.Lab.Machines() {
		require.Equal(t, 4, m.BMC.Profile().SessionLimit, m.Name)
		require.Equal(t, 500*time.Millisecond, m.BMC.Profile().MediaDelay, m.Name)
	}
	ctx := env.Context(10 * time.Minute)
	const crowded = "rack1-c1"
	release := holdSessions(t, env, crowded, 4)
	run := env.StartUpgradeWith(ctx, model.UpdateStrategy{MaxUnavailable: 4, WaitTimeMinutes: new(int)})
	env.Eventually(5*time.Minute, crowded+"'s BMC refused rackroll a session", func() bool {
		return countOf(env, events.SessionRefused, crowded) > 0
	})
	release()

	var st api.UpgradeStatus
	require.NoError(t, run.Get(ctx, &st))
	require.Equal(t, model.ClusterRunning, st.DetailedStatus, st.DetailedStatusMessage)
	for _, b := range env.State().Cluster.BMMs {
		if !b.HasRole(model.RoleKCPSpare) {
			require.Equal(t, "4.2.0", b.RuntimeVersion, b.Name)
		}
	}
	site, err := invariants.SiteFromInventory(env.Inventory)
	require.NoError(t, err)
	require.Empty(t, invariants.Check(env.Events(), invariants.WithUpgrade(site, st)), "starter lab check: violations after the upgrade")
	// At least two installs at once, so sessions were held side by side;
	// how many overlap beyond that depends on the machine's load.
	require.GreaterOrEqual(t, mostInstallsAtOnce(env.Events()), 2, "a rack's computes reimaged together")
	// A watch the workflow cancelled once its node was back hears of it
	// with its next heartbeat the SDK sends (throttled to 0.8 × its one-minute
	// heartbeat timeout), then logs out.
	env.Eventually(2*time.Minute, "every BMC session logged out", func() bool {
		open := 0
		for _, m := range env.Lab.Machines() {
			open += m.BMC.Sessions()
		}
		return open == 0
	})
}

// holdSessions logs in n times at bmm's BMC, as monitoring tools do, and
// returns the logout of them all.
func holdSessions(t *testing.T, env *e2e.Env, bmm string, n int) (release func()) {
	t.Helper()
	m := env.Lab.Machine(bmm)
	hc := redfishtest.TrustingOnly(t, env.Lab.BMCCAFile)
	// The lab's made-up credentials, from the files its out-inventory names.
	inv := env.Lab.OutInventory()
	var ref model.CredentialRef
	for _, r := range inv.Servers() {
		if r.Server.Name == bmm {
			ref = inv.BMCCredentials[r.Server.BMC.Credentials]
		}
	}
	user, pass := readFile(t, ref.UsernameFile), readFile(t, ref.PasswordFile)
	type held struct{ loc, token string }
	var all []held
	for range n {
		body, _ := json.Marshal(map[string]string{"UserName": user, "Password": pass})
		resp, err := hc.Post(m.URL+"/redfish/v1/SessionService/Sessions", "application/json", bytes.NewReader(body))
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, http.StatusCreated, resp.StatusCode)
		all = append(all, held{resp.Header.Get("Location"), resp.Header.Get("X-Auth-Token")})
	}
	return func() {
		for _, h := range all {
			req, _ := http.NewRequest(http.MethodDelete, m.URL+h.loc, nil)
			req.Header.Set("X-Auth-Token", h.token)
			resp, err := hc.Do(req)
			require.NoError(t, err)
			resp.Body.Close()
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return strings.TrimSpace(string(b))
}

func countOf(env *e2e.Env, kind, bmm string) int {
	n := 0
	for _, e := range env.Lab.Events.Events() {
		if e.Kind == kind && e.BMM == bmm {
			n++
		}
	}
	return n
}

// mostInstallsAtOnce is the most installs the lab ran at the same time.
func mostInstallsAtOnce(evs []events.Event) int {
	running, most := 0, 0
	for _, e := range evs {
		switch e.Kind {
		case events.ReimageStart:
			running++
			most = max(most, running)
		case events.ReimageDone, events.ReimageFailed:
			running--
		}
	}
	return most
}
