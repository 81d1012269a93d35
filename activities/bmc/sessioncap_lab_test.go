package bmc

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/lab/redfish"
	"github.com/rackroll/rackroll/internal/lab/redfish/redfishtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// holdSessions logs in n times past rackroll, as other tools on a site do,
// and returns a logout of one of them.
func (l *labRig) holdSessions(n int) (logoutOne func()) {
	l.t.Helper()
	var locs []string
	var tokens []string
	for range n {
		body, _ := json.Marshal(map[string]string{"UserName": redfishtest.Username, "Password": redfishtest.Password})
		resp, err := http.Post(l.ep.Address+"/redfish/v1/SessionService/Sessions", "application/json", bytes.NewReader(body))
		require.NoError(l.t, err)
		resp.Body.Close()
		require.Equal(l.t, http.StatusCreated, resp.StatusCode)
		locs, tokens = append(locs, resp.Header.Get("Location")), append(tokens, resp.Header.Get("X-Auth-Token"))
	}
	return func() {
		i := len(locs) - 1
		req, _ := http.NewRequest(http.MethodDelete, l.ep.Address+locs[i], nil)
		req.Header.Set("X-Auth-Token", tokens[i])
		resp, err := http.DefaultClient.Do(req)
		require.NoError(l.t, err)
		resp.Body.Close()
		locs, tokens = locs[:i], tokens[:i]
	}
}

// At a BMC holding its four sessions, a step waits for a place (the
// refusal is a 400 on idrac9-slow, and still transient) and goes on once
// another holder logs out; it leaves no session of its own behind.
func TestSessionCapIsWaitedOut(t *testing.T) {
	l := newLab(t, redfishtest.Profile("idrac9-slow"))
	logoutOne := l.holdSessions(4)
	freed := make(chan struct{})
	go func() {
		time.Sleep(300 * time.Millisecond)
		logoutOne()
		close(freed)
	}()
	st, err := l.a.ReadPower(context.Background(), l.ep)
	require.NoError(t, err)
	assert.Equal(t, "On", st.PowerState)
	<-freed
	assert.Equal(t, 3, l.bmc.Sessions(), "the step logged out what it opened; the three others hold theirs")
	assert.Equal(t, 5, l.count(events.SessionCreate), "four held, then the step's one once a place was free")
}

// A BMC that never frees a place fails the step before its time is up,
// retryably, saying why.
func TestSessionCapUntilTheDeadlineSaysSo(t *testing.T) {
	l := newLab(t, redfishtest.Profile("idrac9-slow"))
	l.holdSessions(4)
	ctx, cancel := context.WithTimeout(context.Background(), 7*time.Second)
	defer cancel()
	start := time.Now()
	_, err := l.a.ReadPower(ctx, l.ep)
	ae := appError(t, err, ErrTypeUnavailable, true)
	assert.Less(t, time.Since(start), 7*time.Second, "it reports before the deadline")
	assert.Contains(t, ae.Error(), "the BMC refused a new session for")
	assert.Contains(t, ae.Error(), "it holds as many sessions as it allows (HTTP 400 IDRAC.2.8.RAC0218")
	assert.Contains(t, ae.Error(), "SessionTimeout")
	assert.Equal(t, 4, l.bmc.Sessions())
}

// Media actions slower than RequestTimeout (as slow iDRACs and iLOs are)
// still mount and eject: the action's bound is MediaActionTimeout.
func TestSlowMediaOutlastsTheRequestTimeout(t *testing.T) {
	l := newLab(t, redfishtest.Profile("idrac9-slow"), func(c *redfish.Config) { c.Timings.Media = 400 * time.Millisecond })
	l.a.RequestTimeout = 250 * time.Millisecond
	start := time.Now()
	res, err := l.reimage("4.2.0")
	require.NoError(t, err)
	assert.True(t, res.Reimaged)
	assert.GreaterOrEqual(t, time.Since(start), 400*time.Millisecond, "the insert took the BMC's time")
	l.settled("4.2.0")
	require.NoError(t, l.eject("4.2.0"))
	assert.Equal(t, 1, l.count(events.MediaInsert))
	assert.Equal(t, 1, l.count(events.MediaEject))
	assert.Zero(t, l.bmc.Sessions())
}
